#include "harness/slurm_config.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <vector>

#include "schema/user_file.h"

namespace sb {
namespace {

const std::set<std::string> kSlurmKeys = {"partition", "time",   "gpus_per_job", "cpus_per_job",
                                          "mem",       "shards", "extra"};

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw std::invalid_argument(where + ": " + problem);
}

std::string text(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) fail(where, std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

int64_t count(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_integer()) fail(where, std::string("expected an integer, got ") + v.type_name());
  const int64_t x = v.get<int64_t>();
  if (x < 0 || x > 1000000) fail(where, "must be in 0..1000000, got " + std::to_string(x));
  return x;
}

// Characters that sbatch reads literally on an #SBATCH line and the shell never expands.
bool plain(const std::string& s, const std::string& also) {
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && also.find(c) == std::string::npos)
      return false;
  return true;
}

// At most 9 digits: a value std::stoi reads without overflow.
bool short_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

// Slurm's time forms (sbatch(1) --time): "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", and
// UNLIMITED. "-5", "-1:00:00" and ":::" passed the character check and reached sbatch.
bool slurm_time(const std::string& t) {
  if (t == "UNLIMITED" || t == "INFINITE") return true;
  std::string clock = t;
  const size_t dash = t.find('-');
  const bool has_days = dash != std::string::npos;
  if (has_days) {
    if (!short_digits(t.substr(0, dash))) return false;
    clock = t.substr(dash + 1);
  }
  std::vector<std::string> parts(1);
  for (const char c : clock) {
    if (c == ':')
      parts.emplace_back();
    else
      parts.back().push_back(c);
  }
  if (parts.size() > 3 || !std::all_of(parts.begin(), parts.end(), short_digits)) return false;
  return true;
}

}  // namespace

void check_slurm_resources(const SlurmResources& r, const std::string& where) {
  const auto name = [&](const std::string& field) { return where + field; };
  if (!plain(r.partition, "_.,-")) fail(name("partition"), "'" + r.partition + "' is not a name");
  if (!r.time.empty() && !slurm_time(r.time))
    fail(name("time"),
         "'" + r.time + "' is not a Slurm time (M, M:SS, H:MM:SS, D-H, D-H:MM or D-H:MM:SS)");
  if (!r.mem.empty() &&
      (!plain(r.mem, "") || !std::isdigit(static_cast<unsigned char>(r.mem.front()))))
    fail(name("mem"), "'" + r.mem + "' is not a size (e.g. 32G)");
  for (size_t i = 0; i < r.extra.size(); ++i) {
    const std::string& e = r.extra[i];
    if (e.rfind("--", 0) != 0 || e.size() < 3 || !plain(e, "-_.,:=/+%@"))
      fail(name("extra[" + std::to_string(i) + "]"),
           "'" + e + "' is not one sbatch option of the form --name=value");
  }
}

SlurmResources read_slurm_section(const nlohmann::json& sweep, const std::string& source) {
  SlurmResources r;
  if (!sweep.is_object() || !sweep.contains("slurm")) return r;
  const nlohmann::json& s = sweep["slurm"];
  const std::string at = source + ": slurm";
  if (!s.is_object()) fail(at, std::string("expected an object, got ") + s.type_name());
  for (auto it = s.begin(); it != s.end(); ++it) {
    if (kSlurmKeys.count(it.key())) continue;
    std::string known;
    for (const auto& k : kSlurmKeys) known += (known.empty() ? "" : ", ") + k;
    fail(at + "." + it.key(), "unknown key (known: " + known + ")");
  }
  if (s.contains("partition")) r.partition = text(s["partition"], at + ".partition");
  if (s.contains("time")) r.time = text(s["time"], at + ".time");
  if (s.contains("mem")) r.mem = text(s["mem"], at + ".mem");
  if (s.contains("gpus_per_job")) r.gpus_per_job = count(s["gpus_per_job"], at + ".gpus_per_job");
  if (s.contains("cpus_per_job")) r.cpus_per_job = count(s["cpus_per_job"], at + ".cpus_per_job");
  if (s.contains("shards")) r.shards = count(s["shards"], at + ".shards");
  if (s.contains("extra")) {
    const auto& e = s["extra"];
    if (!e.is_array()) fail(at + ".extra", std::string("expected an array, got ") + e.type_name());
    for (size_t i = 0; i < e.size(); ++i)
      r.extra.push_back(text(e[i], at + ".extra[" + std::to_string(i) + "]"));
  }
  check_slurm_resources(r, at + ".");
  return r;
}

SlurmResources read_slurm_file(const std::filesystem::path& path) {
  // read_sweep_file has already refused a malformed file; this reads it again the same way.
  return read_slurm_section(read_json_file(path), path.string());
}

}  // namespace sb
