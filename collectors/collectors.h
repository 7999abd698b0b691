#pragma once
// The collectors a run uses: the wall clock, getrusage, memory, PAPI and OpenCL, in that order.
// The runner should start the wall clock last and stop it first (reverse order for start), so
// that the other collectors' own costs (syscalls, file writes) stay outside the timed interval.
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/wall_clock.h"

namespace sb {

struct CollectorSet {
  WallClock* wall = nullptr;  // owned by `all` (its first element): the runner's sample timer
  std::vector<std::unique_ptr<Collector>> all;
};

CollectorSet make_collectors(const std::vector<std::string>& papi_events);

// {name, available, reason} for the result's context "collectors" list.
nlohmann::json describe(const Collector& collector);

}  // namespace sb
