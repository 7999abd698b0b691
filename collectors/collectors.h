#pragma once
// The collectors a run uses: getrusage, memory, PAPI and OpenCL, in that order. The runner times
// each sample with its own steady clock inside the collectors' window (runner.cpp), so that the
// collectors' own costs (syscalls, file reads) stay outside the timed interval.
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"

namespace sb {

std::vector<std::unique_ptr<Collector>> make_collectors(
    const std::vector<std::string>& papi_events);

// {name, available, reason} for the result's context "collectors" list.
nlohmann::json describe(const Collector& collector);

}  // namespace sb
