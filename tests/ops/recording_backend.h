#pragma once
// A backend that runs every op on another one through its fronts and records which ops reached
// a do_<op> (validated, with something to write): the coverage test checks with it that each
// case really runs the op it claims to cover.
#include <set>

#include "models/ops/backend.h"

namespace sb::testing {

class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(Backend& inner) : in_(inner) {}
  const std::set<Op>& reached() const { return reached_; }
  void clear() { reached_.clear(); }

  std::string name() const override { return in_.name(); }
  std::string device() const override { return in_.device(); }
  BackendMemory memory() override { return in_.memory(); }
  KernelLog* kernel_log() override { return in_.kernel_log(); }
  std::string unsupported_reason(Precision p) const override { return in_.unsupported_reason(p); }
  void synchronize() override { in_.synchronize(); }

 private:
  // Records op, then runs f.
  template <class F>
  auto at(Op op, F&& f) {
    reached_.insert(op);
    return f();
  }

  // Every op of op_list.h: record it, then run it through the inner backend's front.
#define SB_RECORD_AND_FORWARD(RET, OP, PARAMS, ARGS) \
  RET do_##OP PARAMS override {                      \
    return at(Op::OP, [&] { return in_.OP ARGS; });  \
  }
  SB_BACKEND_OPS(SB_RECORD_AND_FORWARD)
#undef SB_RECORD_AND_FORWARD

  int64_t part_alignment() const override {
    return part_alignment_of(in_);
  }
  Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) override {
    return at(Op::flat_parts, [&] { return part_of(in_, flat, offset, std::move(shape)); });
  }
  bool conv1d_gathers_columns(int k, const Weight& w, int64_t channels) const override {
    return in_.conv1d_gathers_columns(k, w, channels);
  }
  void do_conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                 const InputTransform& t, Tensor* columns) override {
    at(Op::conv1d, [&] { in_.conv1d(x, k, w, y, ep, t, columns); });
  }

  Backend& in_;
  std::set<Op> reached_;
};

}  // namespace sb::testing
