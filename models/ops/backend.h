#pragma once
// The op layer. A model is written once against this interface; each backend (cpu: Eigen3 and
// oneDNN, opencl: own kernels and CLBlast) implements it. Stage switches never live here: the
// model picks which ops to call (separate passes or fused ones) from its stage's switches, and the
// precision of a GEMM is a property of its prepared Weight.
//
// Every op is a non-virtual front (backend.cpp, and fronts_<group>.cpp for the training and 3-D
// ops) that validates its arguments once, for every backend, then calls the backend's protected
// do_<op>: both backends accept and reject the same calls with the same messages, and a do_<op>
// may take its arguments as valid.
//
// Conventions: row-major, contiguous f32 activations; "rows" are the leading dimensions folded
// together, "channels" the last dimension. Outputs are written, never accumulated, unless said.
//
// Validation policy, the same for every op on every backend:
//  - A bad argument throws std::invalid_argument "<op>: <what>", naming the shapes involved.
//  - Tensor operands are defined and f32 (ids: i32); a Weight comes from prepare_weight.
//  - Tensors have no offsets, so two either share all their storage or none: an output may be
//    one of the inputs only where the op says so (then the op works in place).
//  - A call with nothing to write (an output of no elements) does nothing, after validation.
//  - Ids are checked against their table on the host, from the range upload_ids records: one
//    pass over ids the host is copying anyway. A device-side check would need a flag read back
//    (a synchronization and a transfer per lookup) or would report the error ops later.
//  - A backend may still refuse a valid call it has no kernel for (a head width beyond its
//    attention kernels, a precision it lacks), with std::invalid_argument saying why.
//
// The layer is a stack of classes, each a header: CoreOps (core_ops.h), the general ops, and the
// families on top of it (volume_ops.h). Backend is the whole stack: models call their ops on it
// and every backend derives from it, declaring its overrides from op_list.h.
#include "models/ops/volume_ops.h"

namespace sb {

class Backend : public VolumeOps {};

// Backend::hold_read_only for the lifetime of a scope.
class HeldReadOnly {
 public:
  HeldReadOnly(Backend& be, const Tensor& t) : be_(be), t_(t) { be_.hold_read_only(t_); }
  ~HeldReadOnly() { be_.release_read_only(t_); }
  HeldReadOnly(const HeldReadOnly&) = delete;
  HeldReadOnly& operator=(const HeldReadOnly&) = delete;

 private:
  Backend& be_;
  Tensor t_;
};

}  // namespace sb
