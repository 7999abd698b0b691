#pragma once
// The CPU backend's class. Its ops live in one file per concern, named as on the OpenCL backend:
// cpu_backend.cpp (memory), linear.cpp (precisions and weights), gemm_eigen.cpp and gemm_dnnl.cpp
// (behind DnnlGemm), data_movement.cpp, elementwise.cpp, norms.cpp, reductions.cpp,
// attention.cpp (logit biases), attention_masked.cpp, attention_relative.cpp, attention_pool.cpp;
// the training ops: cpu_backend.cpp (write, fill), columns.cpp, backward.cpp, dropout.cpp,
// losses.cpp, optimizer.cpp; the 3-D volume ops: conv3d.cpp, conv_transpose3d.cpp, volume.cpp.
// The fronts (models/ops/backend.cpp) have validated every argument before a do_ runs.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "instrument/kernel_log.h"
#include "models/ops/backend.h"

namespace sb::cpu {

class DnnlGemm;

class CpuBackend final : public Backend {
 public:
  CpuBackend();
  ~CpuBackend() override;

  std::string name() const override { return "cpu"; }
  std::string device() const override { return device_; }
  BackendMemory memory() override { return {host_.get(), nullptr}; }
  std::string unsupported_reason(Precision p) const override;
  void synchronize() override {}
  Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) override;
  std::vector<std::pair<std::string, std::string>> autotune_choices() const override;
  // Each op's wall time (op_times.h), only when STAGEBENCH_CPU_OP_TIMES asks for it.
  KernelLog* kernel_log() override { return op_times_ ? &op_log_ : nullptr; }
  // Held tensors' bf16 images for the bf16 products (bf16_images.h; oneDNN builds only).
  void hold_read_only(const Tensor& t) override;
  void release_read_only(const Tensor& t) override;
  // bf16 image blocks converted so far (0 without oneDNN): what the tests check the holds by.
  size_t bf16_image_blocks() const;
  // One product on oneDNN (f32 on its matmul by default, bf16 above the small items), alpha 1,
  // beta 0: the bias in the matmul's epilogue rather than an affine_channels pass over C after
  // it (gemm_eigen.cpp; STAGEBENCH_CPU_GEMM_BIAS=off: the pass, for A/B runs).
  bool fuses_gemm_bias(const GemmBatch& g) const override;
  // At bf16, dy held for the op's two products (dW = dy^T x, dx = dy W), so that both read one
  // bf16 image of it rather than packing it each (linear.cpp).
  void do_linear_backward(const GemmBatch& dw_g, const GemmBatch* dx_g, const Tensor& x,
                          const Tensor& dy, const Tensor& w, Tensor& dw, Tensor& db,
                          Tensor* dx) override;

 private:
  // Every op of op_list.h, each in the file the header comment names; the 3-D convolutions
  // (conv3d.cpp, conv_transpose3d.cpp) through oneDNN primitives (loops without oneDNN), the
  // other volume ops in volume.cpp.
  SB_BACKEND_OPS(SB_DECLARE_OVERRIDE)

  // conv3d.cpp: oneDNN convolution primitives cached per shape, created on first use (oneDNN
  // builds only).
  struct Conv3dPrimitives;
  Conv3dPrimitives& conv3d_primitives();
  std::shared_ptr<Conv3dPrimitives> conv3d_;
  // The held, counted buffers that conv3d's reordered copies live in, by role (0 source, 1
  // weights, 2 destination), for conv_transpose3d's too: `bytes` at least, valid until the
  // role's next call.
  void* conv_copy(int role, size_t bytes);
  // hold_read_only / release_read_only for conv3d's held copies (conv3d.cpp; oneDNN builds).
  void conv_hold(const float* data, bool hold);

  // The log an op's OpScope reports to (op_times.h): null unless op times were asked for.
  KernelLog* op_log() { return op_times_ ? &op_log_ : nullptr; }

  void linear_f32(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep);

  // gemm_batched's f32 kernels (gemm_eigen.cpp): Eigen threaded across the items (one thread
  // per item, Eigen single-threaded inside) or inside each item's GEMM (items in turn), and
  // oneDNN's f32 matmul (with oneDNN only), and plain loops for tiny items (gemm_small.h).
  // Untuned calls take the kernel default_batched_kernel() names.
  enum class BatchedKernel : uint8_t {
    eigen_across_items,
    eigen_inside_gemm,
    onednn_matmul,
    small_items
  };
  static const char* batched_kernel_name(BatchedKernel k);
  BatchedKernel default_batched_kernel(const GemmBatch& g) const;
  // bias: non-null only where fuses_gemm_bias(g) (the onednn_matmul kernel adds it).
  void gemm_batched_f32(BatchedKernel kernel, const GemmBatch& g, const float* a, const float* b,
                        float* c, const float* bias = nullptr);
  // gemm_batched at bf16 (gemm_bf16.cpp, with oneDNN only): small items as bf16-rounded
  // operands through the f32 kernels, the others on oneDNN's bf16 matmul.
  void gemm_batched_bf16(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c,
                         const float* bias = nullptr);
  // Whether gemm_batched_bf16 runs g on oneDNN's bf16 matmul (not the small-item kernels).
  static bool bf16_on_onednn(const GemmBatch& g);
  // Times every candidate on a scratch copy of C (c itself is not written) and returns the
  // median-fastest.
  BatchedKernel tune_gemm_batched(const GemmBatch& g, const float* a, const float* b,
                                  const Tensor& c);

  std::shared_ptr<AllocationTracker> host_;
  std::string device_;
  std::unique_ptr<DnnlGemm> dnnl_;                  // null when built without oneDNN
  std::map<std::string, BatchedKernel> autotuned_;  // gemm_batched autotune: shape key -> kernel
  bool op_times_ = false;
  // Tiny items on their own loops and single large products on oneDNN by default
  // (default_batched_kernel); false when STAGEBENCH_CPU_F32_GEMM=eigen asks for Eigen's for
  // both, the kernels before cpu30.
  bool cpu30_f32_kernels_ = true;
  // fp32 linear on oneDNN's matmul, its epilogue as post-ops (gemm_dnnl.cpp), when the build has
  // it: on the 16-core host Eigen ran Enformer's products of 256 rows at 250-480 GFLOP/s
  // (results/h200-host/srv28-2026-11-28). False with STAGEBENCH_CPU_F32_LINEAR=eigen or
  // STAGEBENCH_CPU_F32_GEMM=eigen: Eigen's row blocks with the epilogue fused (gemm_eigen.cpp).
  bool onednn_linear_ = false;
  bool gemm_bias_ = true;  // STAGEBENCH_CPU_GEMM_BIAS (fuses_gemm_bias)
  KernelLog op_log_;
};

// The knobs that their ops read once, read again (uncached) when a backend is made, so that a bad
// value is refused then, before anything is measured, as every other knob is.
bool read_fused_dropout();       // STAGEBENCH_CPU_FUSED_DROPOUT (dropout.cpp)
int64_t read_sum_axis1_block();  // STAGEBENCH_CPU_SUM_BLOCK (reductions.cpp)
bool read_dice_blocks();         // STAGEBENCH_CPU_DICE_BLOCKS (volume.cpp)

}  // namespace sb::cpu
