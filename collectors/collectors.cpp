#include "collectors/collectors.h"

#include "collectors/memory_collector.h"
#include "collectors/opencl_collector.h"
#include "collectors/papi_collector.h"
#include "collectors/rusage_collector.h"

namespace sb {

CollectorSet make_collectors(const std::vector<std::string>& papi_events) {
  CollectorSet set;
  auto wall = std::make_unique<WallClock>();
  set.wall = wall.get();
  set.all.push_back(std::move(wall));
  set.all.push_back(std::make_unique<RusageCollector>());
  set.all.push_back(std::make_unique<MemoryCollector>());
  set.all.push_back(std::make_unique<PapiCollector>(papi_events));
  set.all.push_back(std::make_unique<OpenCLCollector>());
  return set;
}

nlohmann::json describe(const Collector& collector) {
  nlohmann::json out = {{"name", collector.name()}, {"available", collector.available()}};
  out["reason"] = collector.available() ? nlohmann::json(nullptr)
                                        : nlohmann::json(collector.unavailable_reason());
  return out;
}

}  // namespace sb
