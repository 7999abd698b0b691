#include "models/ops/opencl/clblast_tuning.h"

#include <clblast.h>

#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

#include "models/ops/knobs.h"
#include "schema/atomic_file.h"
#include "schema/user_file.h"

namespace sb {
namespace {

std::filesystem::path cache_dir() {
  if (const char* dir = std::getenv("STAGEBENCH_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "stagebench";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "stagebench";
  return std::filesystem::temp_directory_path() / "stagebench-cache";
}

}  // namespace

std::string clblast_device_key(const cl::Device& device) {
  return device.getInfo<CL_DEVICE_NAME>().c_str() + std::string(" | ") +
         device.getInfo<CL_DRIVER_VERSION>().c_str();
}

std::filesystem::path clblast_tuning_path(const std::string& device_key) {
  std::string file = "clblast-";
  for (char c : device_key) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-';
    file += safe ? c : '_';
  }
  return cache_dir() / (file + ".json");
}

std::optional<ClblastTuning> load_clblast_tuning(const std::filesystem::path& path,
                                                 const std::string& device_key) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const nlohmann::json j = read_json_file(path);
  const std::string where = path.string() + ": ";
  if (!j.is_object() || !j.contains("device") || !j["device"].is_string() ||
      !j.contains("kernels") || !j["kernels"].is_object())
    throw std::invalid_argument(where + "not a CLBlast tuning (needs \"device\" and \"kernels\")");
  ClblastTuning t;
  t.device = j["device"].get<std::string>();
  if (t.device != device_key)
    throw std::invalid_argument(where + "tuned on '" + t.device + "', not on '" + device_key + "'");
  for (const auto& [kernel, params] : j["kernels"].items()) {
    if (!params.is_object() || params.empty())
      throw std::invalid_argument(where + "kernels." + kernel + " is not an object of parameters");
    for (const auto& [name, value] : params.items()) {
      if (!value.is_number_unsigned())
        throw std::invalid_argument(where + "kernels." + kernel + "." + name +
                                    " is not a non-negative whole number");
      t.kernels[kernel][name] = value.get<size_t>();
    }
  }
  t.provenance = j.value("provenance", nlohmann::json::object());
  return t;
}

void save_clblast_tuning(const std::filesystem::path& path, const ClblastTuning& tuning) {
  std::filesystem::create_directories(path.parent_path());
  const nlohmann::json j = {
      {"device", tuning.device}, {"kernels", tuning.kernels}, {"provenance", tuning.provenance}};
  write_text_atomic(path, j.dump(2) + "\n");
}

void apply_clblast_tuning(const cl::Device& device, const ClblastTuning& tuning) {
  for (const auto& [kernel, params] : tuning.kernels) {
    const std::unordered_map<std::string, size_t> p(params.begin(), params.end());
    const auto status =
        clblast::OverrideParameters(device(), kernel, clblast::Precision::kSingle, p);
    if (status != clblast::StatusCode::kSuccess)
      throw std::runtime_error("CLBlast refused the tuned parameters of " + kernel + " (status " +
                               std::to_string(static_cast<int>(status)) + ")");
  }
}

std::map<std::string, size_t> clblast_current_parameters(const cl::Device& device,
                                                         const std::string& kernel) {
  std::unordered_map<std::string, size_t> p;
  const auto status = clblast::RetrieveParameters(device(), kernel, clblast::Precision::kSingle, p);
  if (status != clblast::StatusCode::kSuccess)
    throw std::runtime_error("CLBlast has no parameters for " + kernel + " (status " +
                             std::to_string(static_cast<int>(status)) + ")");
  return {p.begin(), p.end()};
}

std::string apply_cached_clblast_tuning(const cl::Device& device) {
  if (!read_on_off_knob("STAGEBENCH_CLBLAST_TUNING"))
    return "CLBlast defaults (STAGEBENCH_CLBLAST_TUNING=off)";
  try {
    const std::string key = clblast_device_key(device);
    const auto path = clblast_tuning_path(key);
    const auto tuning = load_clblast_tuning(path, key);
    if (!tuning) return "CLBlast defaults (no tuning cached for this device: stagebench tune)";
    apply_clblast_tuning(device, *tuning);
    return "CLBlast tuned on this device: " + path.string();
  } catch (const std::exception& e) {
    // A damaged cache must not stop a run: CLBlast's own parameters are always there.
    return std::string("CLBlast defaults (cached tuning ignored: ") + e.what() + ")";
  }
}

}  // namespace sb
