#include "models/ops/opencl/fault_injection.h"

#include <cstdlib>
#include <stdexcept>

#include "contract/device_lost.h"

namespace sb {
namespace {

constexpr const char* kInjected = " [injected by STAGEBENCH_FAULT]";

uint64_t parse_count(const std::string& text, const std::string& entry) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw std::invalid_argument("STAGEBENCH_FAULT: '" + entry + "' needs a whole number");
  return v;
}

}  // namespace

FaultPlan FaultPlan::parse(const std::string& spec) {
  FaultPlan plan;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = spec.find(',', start);
    const std::string entry =
        spec.substr(start, comma == std::string::npos ? comma : comma - start);
    start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    if (entry.empty()) continue;
    const size_t colon = entry.find(':');
    const std::string kind = entry.substr(0, colon);
    const std::string arg = colon == std::string::npos ? "" : entry.substr(colon + 1);
    if (arg.empty() || (kind != "build" && kind != "launch" && kind != "alloc" && kind != "lost"))
      throw std::invalid_argument("STAGEBENCH_FAULT: '" + entry +
                                  "' is not build:KERNEL, launch:KERNEL, alloc:BYTES or lost:N");
    if (kind == "build") plan.build_.insert(arg);
    if (kind == "launch") plan.launch_.insert(arg);
    // A second alloc or lost would silently replace the first.
    if ((kind == "alloc" && plan.alloc_at_least_) || (kind == "lost" && plan.lost_after_))
      throw std::invalid_argument("STAGEBENCH_FAULT: '" + kind + "' is given twice");
    if (kind == "alloc") plan.alloc_at_least_ = parse_count(arg, entry);
    if (kind == "lost") plan.lost_after_ = parse_count(arg, entry);
  }
  return plan;
}

FaultPlan FaultPlan::from_env() {
  const char* spec = std::getenv("STAGEBENCH_FAULT");
  return spec ? parse(spec) : FaultPlan{};
}

bool FaultPlan::empty() const {
  return build_.empty() && launch_.empty() && !alloc_at_least_ && !lost_after_;
}

void FaultPlan::throw_if_lost() const {
  if (lost_after_ && launches_ >= *lost_after_)
    throw DeviceLost("device lost after " + std::to_string(*lost_after_) +
                     " kernel launches: CL_DEVICE_NOT_AVAILABLE (-2)" + kInjected);
}

void FaultPlan::before_build(const std::string& kernel) const {
  if (build_.count(kernel))
    throw std::runtime_error("OpenCL program for kernel '" + kernel +
                             "' failed to build: clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)" +
                             kInjected);
}

void FaultPlan::before_launch(const std::string& kernel) {
  throw_if_lost();
  ++launches_;
  if (launch_.count(kernel))
    throw std::runtime_error("clEnqueueNDRangeKernel(" + kernel + "): CL_OUT_OF_RESOURCES (-5)" +
                             kInjected);
}

void FaultPlan::before_alloc(size_t bytes) const {
  throw_if_lost();
  if (alloc_at_least_ && bytes >= *alloc_at_least_)
    throw std::runtime_error("clCreateBuffer(" + std::to_string(bytes) +
                             " bytes): CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)" + kInjected);
}

}  // namespace sb
