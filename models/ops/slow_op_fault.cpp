#include "models/ops/slow_op_fault.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "models/ops/backend.h"

namespace sb {
namespace {

constexpr const char* kVariable = "STAGEBENCH_SLOW_OP";

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  std::string ops;
  for (Op op : kSlowableOps) ops += (ops.empty() ? "" : ", ") + std::string(op_name(op));
  throw std::invalid_argument(std::string(kVariable) + "='" + std::string(spec) + "': " + why +
                              " (expected OP:FACTOR, FACTOR >= 1, OP one of " + ops + ")");
}

}  // namespace

std::optional<SlowOpFault> SlowOpFault::parse(std::string_view spec) {
  if (spec.empty()) return std::nullopt;
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) bad(spec, "no ':'");
  const std::string_view name = spec.substr(0, colon);
  const std::string number(spec.substr(colon + 1));
  SlowOpFault f;
  bool known = false;
  for (Op op : kSlowableOps)
    if (op_name(op) == name) {
      f.op = op;
      known = true;
    }
  if (!known) {
    std::string why(1, '\'');  // appended, not '"'" + ...': GCC 12 warns falsely (-Wrestrict)
    why.append(name).append("' is not an op whose front honours the fault");
    bad(spec, why);
  }
  char* end = nullptr;
  f.factor = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(f.factor) ||
      f.factor < 1 || f.factor > 1000)
    bad(spec, "factor '" + number + "' is not a number in [1, 1000]");
  return f;
}

const std::optional<SlowOpFault>& slow_op_fault() {
  static const std::optional<SlowOpFault> fault = [] {
    const char* v = std::getenv(kVariable);
    return SlowOpFault::parse(v ? v : "");
  }();
  return fault;
}

namespace detail {

bool slow_op_applies(Op op) {
  const std::optional<SlowOpFault>& f = slow_op_fault();
  return f && f->op == op;
}

void run_slowed(CoreOps& backend, const SlowOpFault& fault, const std::function<void()>& run) {
  using clock = std::chrono::steady_clock;
  backend.synchronize();  // the op's own time only, not what was queued before it
  const clock::time_point start = clock::now();
  run();
  backend.synchronize();
  const clock::duration took = clock::now() - start;
  const clock::time_point until =
      start + std::chrono::duration_cast<clock::duration>(took * fault.factor);
  // A busy wait: a sleep's wake-up latency (50 us and more) would exceed short ops' time.
  while (clock::now() < until) {
  }
}

}  // namespace detail
}  // namespace sb
