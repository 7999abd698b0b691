#include "reports/gbench.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace sb {
namespace {

// v[a][b]... when every step exists, else null.
const nlohmann::json& at_path(const nlohmann::json& v, std::initializer_list<const char*> path) {
  static const nlohmann::json null_value;
  const nlohmann::json* cur = &v;
  for (const char* k : path) {
    if (!cur->is_object()) return null_value;
    const auto it = cur->find(k);
    if (it == cur->end()) return null_value;
    cur = &*it;
  }
  return *cur;
}

void put_number(nlohmann::json& out, const char* key, const nlohmann::json& v) {
  if (v.is_number() && std::isfinite(v.get<double>())) out[key] = v;
}

nlohmann::json caches(const nlohmann::json& cpu) {
  nlohmann::json out = nlohmann::json::array();
  const struct {
    const char* key;
    const char* type;
    int level;
  } levels[] = {{"l1d_bytes", "Data", 1}, {"l2_bytes", "Unified", 2}, {"l3_bytes", "Unified", 3}};
  for (const auto& l : levels) {
    const auto& size = at_path(cpu, {l.key});
    if (!size.is_number()) continue;
    out.push_back({{"type", l.type}, {"level", l.level}, {"size", size}, {"num_sharing", 0}});
  }
  return out;
}

nlohmann::json gbench_context(const nlohmann::json& ctx) {
  const auto& cpu = at_path(ctx, {"cpu"});
  const auto& argv = at_path(ctx, {"argv"});
  const auto& build_type = at_path(ctx, {"build", "type"});
  const std::string type = build_type.is_string() ? build_type.get<std::string>() : "";
  nlohmann::json out = {
      {"date", at_path(ctx, {"date"}).is_string() ? at_path(ctx, {"date"}) : nlohmann::json("")},
      {"host_name",
       at_path(ctx, {"host"}).is_string() ? at_path(ctx, {"host"}) : nlohmann::json("")},
      {"executable", argv.is_array() && !argv.empty() && argv[0].is_string()
                         ? argv[0]
                         : nlohmann::json("stagebench")},
      {"num_cpus", at_path(cpu, {"logical_cores"}).is_number() ? at_path(cpu, {"logical_cores"})
                                                               : nlohmann::json(0)},
      {"mhz_per_cpu", at_path(cpu, {"mhz"}).is_number()
                          ? nlohmann::json(std::lround(at_path(cpu, {"mhz"}).get<double>()))
                          : nlohmann::json(0)},
      {"cpu_scaling_enabled", false},
      {"caches", caches(cpu)},
      {"load_avg", nlohmann::json::array()},
      {"library_build_type", type == "Debug" ? "debug" : "release"},
      {"json_schema_version", 1},
      {"stagebench_schema", ctx.is_object() ? "stagebench/1" : ""}};
  return out;
}

bool measured(const nlohmann::json& stage) {
  const std::string status = stage.value("status", "");
  return (status == "ok" || status == "invalid") &&
         at_path(stage, {"time", "median_ms"}).is_number();
}

// "model/size/backend" with "/batch:B" when B != 1.
std::string base_name(const nlohmann::json& run) {
  std::string name =
      run.value("model", "?") + "/" + run.value("size", "?") + "/" + run.value("backend", "?");
  const auto& batch = at_path(run, {"params", "batch"});
  if (batch.is_number_integer() && batch.get<int64_t>() != 1)
    name += "/batch:" + std::to_string(batch.get<int64_t>());
  return name;
}

nlohmann::json benchmark(const std::string& name, size_t family, size_t instance,
                         const nlohmann::json& stage) {
  const double median = at_path(stage, {"time", "median_ms"}).get<double>();
  const auto& cpu_ns = at_path(stage, {"counters", "os::cpu_time_ns", "value"});
  const double cpu_ms = cpu_ns.is_number() ? cpu_ns.get<double>() / 1e6 : median;
  const auto& samples = at_path(stage, {"time", "samples"});
  nlohmann::json b = {{"name", name},
                      {"family_index", family},
                      {"per_family_instance_index", instance},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", 1},
                      {"repetition_index", 0},
                      {"threads", 1},
                      {"iterations", samples.is_number() ? samples : nlohmann::json(0)},
                      {"real_time", median},
                      {"cpu_time", cpu_ms},
                      {"time_unit", "ms"}};
  put_number(b, "items_per_second", at_path(stage, {"throughput", "items_per_s"}));
  // User counters, as Google Benchmark writes them: numbers beside the standard keys.
  put_number(b, "speedup_vs_baseline", at_path(stage, {"speedup", "vs_baseline"}));
  const auto& ci = at_path(stage, {"speedup", "ci95"});
  if (ci.is_array() && ci.size() == 2) {
    put_number(b, "speedup_ci95_lo", ci[0]);
    put_number(b, "speedup_ci95_hi", ci[1]);
  }
  put_number(b, "speedup_vs_previous", at_path(stage, {"speedup", "vs_previous"}));
  put_number(b, "claimed_speedup", at_path(stage, {"claim", "speedup"}));
  put_number(b, "cv", at_path(stage, {"time", "cv"}));
  put_number(b, "p10_ms", at_path(stage, {"time", "p10_ms"}));
  put_number(b, "p90_ms", at_path(stage, {"time", "p90_ms"}));
  put_number(b, "gflops", at_path(stage, {"throughput", "gflops"}));
  put_number(b, "gbytes_per_s", at_path(stage, {"throughput", "gbytes_per_s"}));
  put_number(b, "host_peak_bytes", at_path(stage, {"memory", "host_peak_bytes"}));
  put_number(b, "device_peak_bytes", at_path(stage, {"memory", "device_peak_bytes"}));
  put_number(b, "cosine", at_path(stage, {"correctness", "cosine"}));
  if (stage.value("status", "") != "ok") {
    const auto& reason = at_path(stage, {"reason"});
    b["label"] = "invalid" + (reason.is_string() ? ": " + reason.get<std::string>() : "");
  }
  return b;
}

}  // namespace

nlohmann::json gbench_document(const nlohmann::json& doc) {
  const nlohmann::json& runs = at_path(doc, {"runs"});
  std::vector<std::pair<size_t, const nlohmann::json*>> complete;  // index in runs, run
  if (runs.is_array()) {
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto& run = runs[i];
      // "complete" may be absent or null (unknown: kept); only an explicit false is left out.
      // value() would throw the library's bare "type must be boolean" on a null.
      if (!run.is_object() || at_path(run, {"complete"}) == false) continue;
      if (!at_path(run, {"stages"}).is_array()) continue;
      complete.emplace_back(i, &run);
    }
  }
  std::map<std::string, size_t> uses;
  for (const auto& [index, run] : complete) ++uses[base_name(*run)];

  nlohmann::json benchmarks = nlohmann::json::array();
  size_t family = 0;
  for (const auto& [index, run_ptr] : complete) {
    const nlohmann::json& run = *run_ptr;
    std::string base = base_name(run);
    if (uses[base] > 1) base += "/run:" + std::to_string(index);
    for (const auto& stage : run["stages"]) {
      if (!stage.is_object() || !measured(stage)) continue;
      benchmarks.push_back(benchmark(base + "/" + stage.value("id", "?"), family++, 0, stage));
    }
  }
  return {{"context", gbench_context(at_path(doc, {"context"}))}, {"benchmarks", benchmarks}};
}

}  // namespace sb
