#pragma once
// What the gemm benchmark's registry entry (entry.cpp) refuses, for its test.
#include <string>

#include "contract/workload_request.h"

namespace sb {

// Why the gemm benchmark refuses a request's options (--weights, --input/--data, a batch above
// 1), "" when it takes them: its check and factory's.
std::string gemm_refused_options(const WorkloadRequest& r);

}  // namespace sb
