#pragma once
// Where a CPU stage's time goes, op by op (STAGEBENCH_CPU_OP_TIMES=1). The CPU backend then
// reports each op's wall time to a KernelLog as the OpenCL backend reports its kernels, so the
// stage record's per-kernel block and `run --timeline` list the ops, named with their GEMM shapes
// (the OpenCL collector's block is the one record of per-kernel time; on the CPU its
// "device_ms" is the ops' summed host time). Off by default: no log, no clock reads, and the
// stage record stays what it was.
#include <cstdint>
#include <string>

#include "instrument/host_ranges.h"
#include "instrument/kernel_log.h"
#include "models/ops/op_types.h"

namespace sb::cpu {

// STAGEBENCH_CPU_OP_TIMES is 1 or on; read once per backend.
bool cpu_op_times_requested();

// Times the enclosing scope as one op of `log`, when there is a log. `name` is a callable that
// makes the op's name, called only then. Ops run one at a time on the calling thread (each is
// parallel inside), so wall time is the op's time; an op called from inside another is
// counted in both.
class OpScope {
 public:
  template <class Name>
  OpScope(KernelLog* log, Name&& name) : log_(log) {
    if (log_ == nullptr) return;
    name_ = name();
    begin_ns_ = host_now_ns();
  }
  ~OpScope() {
    if (log_ != nullptr) log_->kernel_event(name_, begin_ns_, begin_ns_, host_now_ns());
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  KernelLog* log_;
  std::string name_;
  uint64_t begin_ns_ = 0;
};

// "MxKxN": a GEMM's shape in an op's name.
inline std::string gemm_shape(int64_t m, int64_t k, int64_t n) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

// A convolution's shape as the implicit GEMM of equal FLOPs, so the op table's GFLOP/s column
// covers convolutions too: a convolution's M = output voxels (batch included), K = C_in k^3,
// N = C_out; a transposed one's M = input voxels, K = C_in, N = C_out k^3 (each input voxel
// spreads over k^3 outputs). Its backward passes do the same FLOPs.
inline std::string conv_gemm_shape(const Conv3dShape& s, bool transposed) {
  const int64_t taps = int64_t{s.kernel} * s.kernel * s.kernel;
  if (transposed)
    return gemm_shape(s.batch * s.d * s.h * s.w, s.in_channels, s.out_channels * taps);
  const int64_t out = s.out_size(s.d, false) * s.out_size(s.h, false) * s.out_size(s.w, false);
  return gemm_shape(s.batch * out, s.in_channels * taps, s.out_channels);
}

}  // namespace sb::cpu
