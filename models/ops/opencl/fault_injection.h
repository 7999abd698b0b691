#pragma once
// Fault injection for the OpenCL backend (issue 16): STAGEBENCH_FAULT makes a program build, a
// kernel launch or a buffer allocation fail as the driver would, or the device go away, so that
// the runner's handling of device faults is tested on any device (PoCL in CI). A comma-separated
// list of:
//   build:KERNEL   building the program for KERNEL fails (CL_BUILD_PROGRAM_FAILURE)
//   launch:KERNEL  every launch of KERNEL fails (CL_OUT_OF_RESOURCES)
//   alloc:BYTES    every buffer of at least BYTES bytes fails (CL_MEM_OBJECT_ALLOCATION_FAILURE)
//   lost:N         after N kernel launches the device is lost: every later launch and
//                  allocation throws DeviceLost (contract/device_lost.h)
// Unset or empty: no faults and no cost beyond a branch per launch and allocation.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace sb {

class FaultPlan {
 public:
  // Parses `spec` (the variable's value); throws std::invalid_argument naming a bad entry.
  static FaultPlan parse(const std::string& spec);
  // The plan STAGEBENCH_FAULT asks for (none when unset).
  static FaultPlan from_env();

  bool empty() const;
  // Each throws what the driver's failure would be (std::runtime_error), or DeviceLost.
  void before_build(const std::string& kernel) const;
  void before_launch(const std::string& kernel);
  void before_alloc(size_t bytes) const;

 private:
  void throw_if_lost() const;

  std::set<std::string> build_, launch_;
  std::optional<size_t> alloc_at_least_;
  std::optional<uint64_t> lost_after_;
  uint64_t launches_ = 0;
};

}  // namespace sb
