#include "collectors/collectors.h"

#include "collectors/memory_collector.h"
#include "collectors/opencl_collector.h"
#include "collectors/papi_collector.h"
#include "collectors/rusage_collector.h"

namespace sb {

std::vector<std::unique_ptr<Collector>> make_collectors(
    const std::vector<std::string>& papi_events) {
  std::vector<std::unique_ptr<Collector>> all;
  all.push_back(std::make_unique<RusageCollector>());
  all.push_back(std::make_unique<MemoryCollector>());
  all.push_back(std::make_unique<PapiCollector>(papi_events));
  all.push_back(std::make_unique<OpenCLCollector>());
  return all;
}

nlohmann::json describe(const Collector& collector) {
  nlohmann::json out = {{"name", collector.name()}, {"available", collector.available()}};
  out["reason"] = collector.available() ? nlohmann::json(nullptr)
                                        : nlohmann::json(collector.unavailable_reason());
  return out;
}

}  // namespace sb
