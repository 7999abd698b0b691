#pragma once
// OpenCLBackend's declaration, shared by the files that implement its ops, named as on the CPU
// backend (one concern each): opencl_backend.cpp (memory, programs), linear.cpp (precisions and
// weights), gemm_clblast.cpp, gemm_tiled.cpp and gemm_mma.cpp, data_movement.cpp,
// elementwise.cpp, norms.cpp, reductions.cpp, attention.cpp (logit biases), attention_masked.cpp,
// attention_relative.cpp, attention_pool.cpp, and for training transfers.cpp (write, fill),
// columns.cpp, backward.cpp, losses.cpp (and sum_squares), optimizer.cpp; dropout sits with the
// elementwise ops. The fronts (models/ops/backend.cpp) have validated
// every argument before a do_ runs; what is left to check here is what this device can do.
#include <CL/opencl.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/ops/backend.h"
#include "models/ops/opencl/cl_launch_list.h"
#include "models/ops/opencl/cl_runtime.h"
#include "models/ops/opencl/conv_path.h"
#include "models/ops/opencl/device_memory.h"
#include "models/ops/opencl/event_log.h"
#include "models/ops/opencl/fault_injection.h"
#include "models/ops/opencl/gemm_path.h"
#include "models/ops/opencl/pipe_variants.h"

namespace sb {

// Whether the f16, tf32 or s8 GEMM runs on the cp.async pipeline for this K (gemm_mma.cpp; the
// STAGEBENCH_MMA_GEMM knob).
bool gemm_pipelined(Precision p, int64_t k);

// The pipelines' epilogue `act` argument: the activation, and whether y holds halves
// (EPI_HALF_OUT in kernels/gemm_pipelined.cl; gemm_mma.cpp).
int epilogue_act(const Epilogue& ep, const Tensor& y);

// 16-query blocks a warp of the f16 masked attention kernel (STAGEBENCH_MMA_ATTENTION).
int attention_blocks();

// STAGEBENCH_CONV_NARROW: planes (default) and direct run narrow convolutions on
// kernels/conv3d_narrow.cl (planes: the 3^3 one-channel weight gradient on
// conv3d_narrow_dw_k3_planes, direct: on conv3d_narrow_dw_k3; the same bits); igemm leaves them on
// the paths they took before (the implicit GEMM on NVIDIA); v1 runs them without
// conv3d_narrow_dw_k3 and conv3d_narrow_rows4_k3 (conv3d_narrow.cpp). Anything else throws
// std::invalid_argument naming the value.
bool conv_narrow_requested();
bool conv_narrow_v2_requested();  // planes or direct

// STAGEBENCH_ROW_KERNELS: vec (default) runs LayerNorm and the masked mean on the 16-byte
// kernels where the width allows (layernorm_rows_vec8_*, masked_mean_quads); lanes keeps the
// earlier add_layernorm_rows, layernorm_welford and masked_mean, for A/B runs (norms.cpp).
// Anything else throws std::invalid_argument naming the value.
bool row_kernels_vec_requested();
// STAGEBENCH_LAYERNORM_WARP: on (default) runs those LayerNorms on NVIDIA on a warp a row
// (kernels/layernorm_warp_nvidia.cl); off keeps the portable kernels there (norms.cpp).
bool layernorm_warp_requested();
// DeepFM's bias gradients (dfm33):
// STAGEBENCH_SUM_AXIS1: split (default) runs sum_axis1 over 16 or more rows on
// sum_axis1_split (a work-group per 32 columns, 8 lanes down the rows); items keeps the item per
// column, for A/B runs (reductions.cpp). Anything else throws std::invalid_argument.
bool sum_axis1_split_requested();
// DeepFM's heads (dfm35):
// STAGEBENCH_THIN_GEMM: small (default) adds a narrow f16/tf32 product's bias in
// gemm_batched_small's epilogue and runs one-item products of at most 16 rows and a K of at most
// 128 (the heads' weight gradients) there too; mma keeps the bias a separate pass and those
// products on the tensor cores, for A/B runs (gemm_clblast.cpp). Anything else throws
// std::invalid_argument.
bool thin_gemm_small_requested();
// STAGEBENCH_POOL_VEC8: on (default) runs Enformer's attention pooling eight channels an item
// where the channels allow (attention_pool_vec8); off keeps the one-channel-an-item kernel, for
// A/B runs (attention_pool.cpp). Anything else throws std::invalid_argument.
bool pool_vec8_requested();
// STAGEBENCH_INORM_VEC4 (dyn33): on (default) runs InstanceNorm's elementwise passes four
// elements an item where the layout allows (instance_norm.cl); off: one an item, for A/B runs
// (instance_norm.cpp). Anything else throws std::invalid_argument.
bool inorm_vec4_requested();
// STAGEBENCH_F16_ACTIVATIONS: on (default) lets producers write noticed activations' f16 copies
// for the f16 products' x operands (f16_activations.cpp); off never does. Anything else throws.
bool f16_activations_requested();
// STAGEBENCH_LINEAR_GRADS: one-pack (default) packs a linear layer's backward operands (both
// products' f16 halves) and sums its bias gradient in one launch (linear_grads.cpp, dfm36); off
// runs the op layer's default (two gemm_batched calls and sum_axis1). Anything else throws.
bool linear_grads_one_pack_requested();
// STAGEBENCH_LAYERNORM_BACKWARD: merged runs layernorm_backward's column sums in its dx launch,
// three launches (backward.cpp, dfm36: the same bits on PoCL, not yet timed on a GPU); passes
// (default) keeps the four. Anything else throws.
bool layernorm_backward_merged_requested();

// The portable fused attention kernels (kernels/attention_masked.cl): the head widths they are
// compiled for (a narrower head runs in the next wider kernel, zero-padded), their queries
// (= work-items) per work-group, the faster of 32 and 64 on an H100 at B 8, n 512 (32 wins at
// dh 48 and 64), and their keys per local-memory tile.
struct FusedAttentionKernel {
  int width;
  int queries;
  int keys;
  const char* name;
  // The local memory the kernel declares: the key and value tiles, the tile's key biases and,
  // at widths over 64, the queries (FA_Q_LOCAL).
  constexpr size_t local_bytes() const {
    const size_t tiles = 2 * size_t(keys) * width + keys;
    return 4 * (tiles + (width > 64 ? size_t(width) * queries : 0));
  }
};
// Local memory a compiler may add to a kernel's own __local arrays (the spec lets it: NVIDIA's
// driver 580 reports 16 bytes more than local_bytes() for every fused attention kernel). The
// portable program includes a variant only if local_bytes() plus this fits the device; the
// choice then checks the built kernel's CL_KERNEL_LOCAL_MEM_SIZE.
inline constexpr size_t kCompilerLocalSlack = 256;
// A width's variants in order of preference: a device builds only those whose local_bytes()
// plus kCompilerLocalSlack its CL_DEVICE_LOCAL_MEM_SIZE holds, and runs the first whose built
// figure it holds. OpenCL promises 32 KiB; the first dh-128
// kernel needs 49,216 bytes, more than Oclgrind's 32 KiB (which refused its launch) and than the
// 49,152 that NVIDIA's driver reports, so those run the second (24,608 bytes). No name is
// another's prefix: Oclgrind charges a kernel with every __local array whose name starts with
// the kernel's (its Kernel.cpp), so a kernel "..._d128" would be charged with "..._d128_k8"'s.
inline constexpr FusedAttentionKernel kFusedAttentionKernels[] = {
    {16, 64, 32, "attention_fused_d16"},
    {32, 32, 32, "attention_fused_d32"},
    {64, 32, 32, "attention_fused_d64"},
    {128, 64, 16, "attention_fused_d128"},
    {128, 32, 8, "attention_fused_k8_d128"}};

class OpenCLBackend : public Backend {
 public:
  explicit OpenCLBackend(cl::Device device);
  ~OpenCLBackend() override;

  std::string name() const override { return "opencl"; }
  std::string device() const override { return device_name_; }
  BackendMemory memory() override;
  std::unique_ptr<HostStaging> host_staging(size_t bytes) override;
  KernelLog* kernel_log() override { return &kernel_log_; }
  std::string unsupported_reason(Precision p) const override;
  std::string attention_fused_unsupported(int64_t dh) const override;
  void synchronize() override;
  std::vector<std::pair<std::string, std::string>> autotune_choices() const override;
  std::string library_tuning() const override { return library_tuning_; }
  std::string gemm_paths() const override;
  // The mma kernels' epilogue adds the bias: every product gemm_batched_mma runs; and
  // gemm_batched_small's for the narrow ones it takes from them (STAGEBENCH_THIN_GEMM, dfm35).
  bool fuses_gemm_bias(const GemmBatch& g) const override {
    return gemm_batched_on_mma(g) && (thin_gemm_small_ || !gemm_batched_mma_small(g));
  }
  // Held tensors' bf16 copies (conv3d_igemm.cpp): kept from the first bf16 convolution that
  // reads the tensor until its last hold ends (STAGEBENCH_CONV_BF16_REUSE=off: never kept).
  void hold_read_only(const Tensor& t) override;
  void release_read_only(const Tensor& t) override;
  // bf16 reads on devices with the bf16 implicit GEMM (or anywhere: write_bf16_copies_anywhere
  // for tests, STAGEBENCH_CONV_BF16_PRODUCERS=anywhere): the next instance norm or concat that
  // writes t's storage writes its bf16 copy too, which the hold then keeps (=off: never).
  void will_hold_read_only(const Tensor& t, Precision read_as) override;
  void write_bf16_copies_anywhere(bool on) { bf16_copies_anywhere_ = on; }
  // The bf16 copy a held tensor keeps now, undefined if none (tests).
  Tensor held_bf16(const Tensor& t) const;
  // How many tensors are held now, and how many bf16 copies they have (tests).
  size_t held_tensors() const { return held_.size(); }
  size_t held_bf16_copies() const;
  bool conv1d_gathers_columns(int k, const Weight& w, int64_t channels) const override;
  // Launch lists (cl_launch_list.h, launch_recording.cpp; replay35).
  std::string launch_recording_unsupported() const override { return clone_unsupported_; }
  void begin_launch_recording() override;
  std::unique_ptr<LaunchList> end_launch_recording() override;

  // Bytes the caching allocator holds in freed buffers (not counted in memory().device).
  uint64_t pooled_bytes() const { return pool_->pooled_bytes(); }
  // True when the NVIDIA tensor-core (inline PTX mma.sync) kernels serve tf32 and f16 here.
  bool has_mma() const;
  // has_mma() on compute capability 9.0 or later: the bulk-copy pipeline variants (mma39).
  bool has_bulk_copies() const;
  // conv3d_igemm.cpp: the implicit-GEMM forward conv3d. Why a call stays on vol2col ("" when
  // it does not); the knob (tests and the per-shape comparison set it after construction).
  std::string conv3d_implicit_unavailable(const Conv3dShape& s) const;
  // conv3d_bwd_igemm.cpp: the same for the backward passes of the forward shape s (weights:
  // the weight gradient, else the data gradient).
  std::string conv3d_backward_implicit_unavailable(const Conv3dShape& s, bool weights) const;
  void set_conv_igemm_knob(ConvIgemmKnob knob) { conv_igemm_knob_ = knob; }
  // STAGEBENCH_CONV_DW_BF16 (conv_path.h), read at construction; tests set it after.
  void set_conv_dw_bf16_knob(ConvDwBf16Knob knob) { conv_dw_bf16_knob_ = knob; }
  void set_ncdhw_copies(bool on) { ncdhw_copies_ = on; }  // STAGEBENCH_CONV_NCDHW, for tests
  void set_conv_narrow(bool on) { conv_narrow_ = on; }    // STAGEBENCH_CONV_NARROW, for tests
  // True when f16 GEMMs may run on wgmma here: sm_90, STAGEBENCH_WGMMA not off, and the patched
  // program built and matched the mma.sync pipeline when the backend was made (gemm_wgmma.cpp).
  bool has_wgmma() const { return wgmma_device_.checked; }
  // gemm_batched's f16 wgmma products split K this many ways instead of timing the candidates
  // (0: time them; STAGEBENCH_GEMM_SPLIT_K=off still wins). For tests of the split path itself.
  void force_split_k(int splits) { forced_split_k_ = splits; }
  // The kernels of the portable program as built for this device (CL_PROGRAM_KERNEL_NAMES):
  // what the Oclgrind pass must see launched (scripts/oclgrind-ci.sh).
  std::vector<std::string> portable_kernel_names();
  // CL_KERNEL_LOCAL_MEM_SIZE of a portable kernel on this device (its __local arrays).
  uint64_t kernel_local_mem_bytes(const std::string& name);
  // The local memory a work-group may use here (CL_DEVICE_LOCAL_MEM_SIZE, or
  // STAGEBENCH_CL_LOCAL_MEM_LIMIT where lower).
  uint64_t kernel_local_mem_limit() const { return runtime_->local_mem_bytes(); }
  // The fused attention kernel attention_fused runs for head width dh here, or "" (tests).
  std::string fused_attention_choice(int64_t dh) const;

 private:
  // Every op of op_list.h, in the files the header comment names.
  SB_BACKEND_OPS(SB_DECLARE_OVERRIDE)
  int64_t part_alignment() const override;
  Tensor do_part(const Tensor& flat, int64_t offset, std::vector<int64_t> shape) override;
  void do_conv1d(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
                 const InputTransform& t, Tensor* columns) override;
  void do_linear_backward(const GemmBatch& dw_g, const GemmBatch* dx_g, const Tensor& x,
                          const Tensor& dy, const Tensor& w, Tensor& dw, Tensor& db,
                          Tensor* dx) override;  // linear_grads.cpp

  // conv_transpose3d.cpp: kernel == stride, padding 0 only (CLBlast GEMM + column moves).
  // The fp32 products of the three, their items' offsets stepping evenly: CLBlast's Gemm (one
  // item) or GemmStridedBatched, or gemm_portable.
  void strided_gemm(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c);

  // dyn32: the k2 s2 transposed convolution on the bf16 implicit GEMMs
  // (conv_transpose3d_igemm.cpp). Empty where a call runs there, else why it stays on CLBlast;
  // the three passes return false, having queued nothing, where it does not.
  std::string conv_transpose3d_igemm_unavailable(const Conv3dShape& s) const;
  bool conv_transpose3d_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                              const Tensor* bias, Tensor& y);
  bool conv_transpose3d_backward_data_igemm(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                            Tensor& dx);
  bool conv_transpose3d_backward_weights_igemm(const Conv3dShape& s, const Tensor& x,
                                               const Tensor& dy, Tensor& dw);
  // conv_transpose3d.cpp: the weight gradient's fp32 CLBlast path (the one before, and the
  // fallback).
  void conv_transpose3d_weights_clblast(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                        Tensor& dw);
  bool conv_transpose_igemm_ = conv_transpose_igemm_requested();  // STAGEBENCH_CONV_TRANSPOSE_IGEMM

  // dyn33 (issue 27): conv3d_lines_bf16_16 (kernels/conv3d_lines_bf16_nvidia.cl), the 3^3
  // stride-1 forward convolutions (and data gradients) into 16 channels, in conv3d_igemm.cpp;
  // InstanceNorm's elementwise passes four elements an item (instance_norm.cpp).
  bool conv_lines_fit(const Conv3dShape& s) const;
  bool conv_lines_built();  // its program (false, and the path off, where it fails to build)
  void launch_conv_lines(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                         Tensor& y);
  bool inorm_vec4_fits(bool ndhwc, int64_t channels, int64_t voxels) const;  // instance_norm.cpp
  int conv_lines_pairs_ = conv_lines_requested();  // STAGEBENCH_CONV_LINES; 0: off

 public:
  // Tests: the line pairs conv3d_lines_bf16_16 takes (0: off), whatever the environment said.
  void use_conv_lines(int pairs) { conv_lines_pairs_ = pairs; }

 private:
  bool inorm_vec4_ = inorm_vec4_requested();  // STAGEBENCH_INORM_VEC4

  // dyn34 (issue 27): STAGEBENCH_CONV_NARROW=planes, the default, runs the 3^3 one-channel
  // weight gradient on conv3d_narrow_dw_k3_planes, =direct on conv3d_narrow_dw_k3
  // (conv3d_narrow.cpp).
 public:
  // Tests: that kernel or conv3d_narrow_dw_k3, whatever the environment said.
  void use_conv_narrow_dw_planes(bool on) { conv_narrow_dw_planes_ = on; }
  bool conv_narrow_dw_planes() const { return conv_narrow_dw_planes_; }

 private:
  static bool conv_narrow_dw_planes_requested();
  bool conv_narrow_dw_planes_ = conv_narrow_dw_planes_requested();

  // instance_norm.cpp: instance_norm_partials over x (and dy): the chunk sums into `partials`,
  // their count per instance into `chunks`.
  void instance_norm_sums(const Tensor& x, const Tensor* dy, bool ndhwc, int64_t batch,
                          int64_t channels, int64_t voxels, Tensor& partials, int* chunks);

  // A kernel of the portable program (all of kernels/*.cl but the NVIDIA one), built on first
  // use; the same cl::Kernel object is reused, so launches are not thread-safe (nor is the
  // backend).
  cl::Kernel& kernel(const std::string& name);
  const cl::Program& portable_program();  // built on first use
  cl::Kernel& mma_kernel(const std::string& name);
  // Work-group size of the row reductions (REDUCE_WG in the kernels): 256 items, or the
  // device's largest power of two below that.
  size_t reduce_group() const;
  // layernorm_rows_vec8_* (norms.cpp) over x's rows, plus residual's where given.
  void launch_layernorm_vec8(const Tensor& x, const Tensor* residual, const Tensor& gamma,
                             const Tensor& beta, float eps, Tensor& y);
  Tensor upload_bytes(const void* data, size_t bytes, std::vector<int64_t> shape, DType dtype);
  // Copies host bytes into t's buffer (blocking or queued) and counts them as a transfer.
  void write_bytes(const void* data, size_t bytes, Tensor& t, bool blocking);
  // A small index list as an i32 device tensor (uploaded per call: it is tiny); every value
  // fits an int, as the fronts have checked it against a tensor dimension.
  Tensor upload_index(std::span<const int64_t> index);

  // Sets the arguments in order and launches `name` over `global` (rounded up to a multiple
  // of `local` when a local size is given).
  template <class... Args>
  void launch(const std::string& name, cl::NDRange global, cl::NDRange local, Args&&... args) {
    cl::Kernel& k = kernel(name);
    set_args(k, 0, std::forward<Args>(args)...);
    faults_.before_launch(name);
    events_.launch(name, k, global, local);
  }
  template <class... Args>
  void launch_mma(const std::string& name, cl::NDRange global, cl::NDRange local, Args&&... args) {
    cl::Kernel& k = mma_kernel(name);
    set_args(k, 0, std::forward<Args>(args)...);
    faults_.before_launch(name);
    events_.launch(name, k, global, local);
  }
  static void set_args(cl::Kernel&, cl_uint) {}
  template <class T, class... Rest>
  void set_args(cl::Kernel& k, cl_uint i, T&& first, Rest&&... rest) {
    set_arg(k, i, std::forward<T>(first));
    set_args(k, i + 1, std::forward<Rest>(rest)...);
  }
  // replay35: a recording keeps every tensor a launch uses (cl_launch_list.h).
  void set_arg(cl::Kernel& k, cl_uint i, const Tensor& t) {
    k.setArg(i, device_buffer(t));
    if (recorder_.active()) recorder_.keep(t);
  }
  // Optional tensors: a dummy buffer stands in for null (not every driver takes a null cl_mem).
  void set_arg(cl::Kernel& k, cl_uint i, const Tensor* t) {
    k.setArg(i, t ? device_buffer(*t) : dummy_);
    if (t && recorder_.active()) recorder_.keep(*t);
  }
  void set_arg(cl::Kernel& k, cl_uint i, const cl::LocalSpaceArg& local) { k.setArg(i, local); }
  void set_arg(cl::Kernel& k, cl_uint i, float v) { k.setArg(i, v); }
  void set_arg(cl::Kernel& k, cl_uint i, int v) { k.setArg(i, static_cast<cl_int>(v)); }
  void set_arg(cl::Kernel& k, cl_uint i, uint32_t v) { k.setArg(i, static_cast<cl_uint>(v)); }
  void set_arg(cl::Kernel& k, cl_uint i, int64_t v);

  // f32 linear through CLBlast, f16/int8 through the portable tiled kernel, tf32/f16 through
  // the NVIDIA mma kernels.
  void linear_clblast(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep, int64_t m);
  void linear_tiled(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep, int64_t m);
  // STAGEBENCH_F32_GEMM=portable: every fp32 product that CLBlast computes (linear, gemm_batched,
  // the 3-D convolutions' column GEMMs) goes to the portable gemm_general instead, one launch
  // per item, so that a simulator can run those ops (scripts/oclgrind-ci.sh; CLBlast's own
  // kernels take minutes a call under Oclgrind). Unset or "clblast": CLBlast. Never timed: a run
  // under it says so in its params (library_tuning).
  static bool portable_f32_gemm_requested();
  void gemm_portable(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c);
  void linear_mma(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep, int64_t m);
  // The f16, tf32 or s8 GEMM on the cp.async pipeline: x [m, k] and w [n, k] half, fp32 or
  // int8, rows 16-byte aligned (gemm_pipelined()); s8 also takes the dequantization scales.
  void gemm_pipelined_mma(PipeKind kind, const Tensor& x, const Tensor& w, Tensor& y,
                          const Epilogue& ep, int64_t m, int64_t n, int64_t k,
                          const PipeScales& s8 = {}, const PipeConv& conv = {});
  void launch_pipe(PipeKind kind, PipeTile tile, const Tensor& x, const Tensor& w, Tensor& y,
                   const Epilogue& ep, int64_t m, int64_t n, int64_t k, const PipeScales& s8,
                   const PipeConv& conv);
  PipeTile pipe_tile(PipeKind kind, const Tensor& x, const Tensor& w, int64_t m, int64_t n,
                     int64_t k, const PipeScales& s8, const PipeConv& conv, GemmPath path,
                     const Epilogue& ep = {}, DType out = DType::f32);
  // Which of `count` candidates `launch(i)` queues fastest: they take turns, five timed rounds
  // after an untimed one, each keeping its fastest run (wall time around a finish of the queue).
  // Returns with the queue finished.
  size_t fastest_candidate(size_t count, const std::function<void(size_t)>& launch);
  // gemm_wgmma.cpp: the start-up decision (builds both wgmma variants, checks them against the
  // pipeline on small shapes with edges and an epilogue; sets wgmma_device_ and wgmma_status_),
  // the kernels and their launch (same arguments as the pipeline's).
  void init_wgmma();
  std::string check_wgmma();  // "" when every variant matched the pipeline, else what did not
  void check_wgmma_tf32();    // gemm36: leaves out the tf32 variants that do not match
  cl::Kernel& wgmma_kernel(int bn);
  // splits > 1: y is [splits, m, n], slice s the product over the s-th run of K tiles, and ep
  // must be empty (gemm_batched_mma.cpp sums the slices).
  void launch_wgmma(int bn, const Tensor& x, const Tensor& w, Tensor& y, const Epilogue& ep,
                    int64_t m, int64_t n, int64_t k, const PipeConv& conv, int splits = 1);
  // gemm_batched_mma.cpp: how many ways an f16 wgmma product's K is split (1: not), timed on the
  // first call with the shape among split_k_candidates() and kept (autotune_choices() lists it).
  int split_k(const Tensor& x, const Tensor& w, int64_t m, int64_t n, int64_t k);
  // Counts one tensor-core GEMM call in the kernel log ("fp16 wgmma", "tf32 mma.sync", ...).
  void count_gemm(PipeKind kind, GemmPath path);
  // x (count elements) into int8 xq for w's s8 GEMM: with the calibrated range's scale, else
  // with the input's own symmetric range found on the device (into `scales`, kept alive by the
  // caller until the GEMM is queued). Returns what the GEMM dequantizes with.
  PipeScales quantize_s8(const Tensor& x, int64_t count, const Weight& w, Tensor& xq,
                         Tensor& scales);
  // conv3d's forward pass as an implicit GEMM (conv3d_igemm.cpp, kernels/conv3d_igemm.cl).
  void conv3d_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                    Tensor& y);
  cl::Kernel& conv_igemm_kernel(const std::string& name);  // its program, built on first use
  // The measured tile of each shape so far (autotune_choices()).
  void add_conv_igemm_choices(std::vector<std::pair<std::string, std::string>>& out) const;
  // phase_dx: the stride-2 data gradient's dx sizes (d, h, w) and the plane its rows start from
  // (1; 0 for the transposed convolution's forward pass) when the GEMM is its phases
  // convolution storing onto dx (y) itself (conv3d_phase_store, bf16 on 64-wide tiles).
  void launch_conv_igemm(size_t tile, PipeKind kind, const Conv3dShape& s, const Tensor& x,
                         const Tensor& w, const Tensor* bias, Tensor& y,
                         const int64_t* phase_dx = nullptr);
  // x_bf16: x's bf16 bits already made by the caller (the data gradient's spread dy), for bf16.
  void conv3d_igemm_permuted(const Conv3dShape& s, const Tensor& x, const Tensor& wt,
                             const Tensor* bias, Tensor& y, const char* label,
                             const Tensor* x_bf16 = nullptr, const int64_t* phase_dx = nullptr);
  // conv3d's backward passes as implicit GEMMs (conv3d_bwd_igemm.cpp, kernels/
  // conv3d_bwd_igemm.cl); false: the call is not covered and nothing was queued.
  // conv3d_narrow.cpp: channels-last reduced-precision calls with one input or one output
  // channel, in fp32 without a GEMM (kernels/conv3d_narrow.cl); false where it does not apply.
  bool conv3d_narrow(const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias,
                     Tensor& y);
  bool conv3d_backward_data_narrow(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                   Tensor& dx);
  void launch_narrow_c1(int ks, const Tensor& in, const Tensor& w, const Tensor* bias, int64_t co,
                        int64_t n, int64_t d, int64_t h, int64_t wd, int stride, int pad,
                        int64_t od, int64_t oh, int64_t ow, int64_t w_out_step, bool flip,
                        Tensor& out);
  bool conv3d_backward_data_phases(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                   Tensor& dx);  // conv3d_bwd_igemm.cpp
  // Whether that GEMM stores onto dx itself (bf16, in channels a multiple of 4, 64-wide tiles;
  // STAGEBENCH_CONV_PHASE_STORE=off: through conv3d_phase_scatter).
  bool phase_store(const Conv3dShape& phases) const;
  bool conv3d_backward_weights_narrow(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                      Tensor& dw, Tensor* dbias);
  bool conv3d_backward_weights_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                     Tensor& dw, Tensor* dbias);
  bool conv3d_backward_data_igemm(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                  Tensor& dx);
  // ncdhw calls on those implicit GEMMs through channels-last copies (conv3d_ncdhw.cpp); false:
  // the channels-last call would not take them either, and nothing was queued.
  bool conv3d_ncdhw_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& w,
                          const Tensor* bias, Tensor& y);
  bool conv3d_backward_data_ncdhw_igemm(const Conv3dShape& s, const Tensor& dy, const Tensor& w,
                                        Tensor& dx);
  bool conv3d_backward_weights_ncdhw_igemm(const Conv3dShape& s, const Tensor& x, const Tensor& dy,
                                           Tensor& dw, Tensor* dbias);
  // STAGEBENCH_CONV_NCDHW=channels_last: conv3d's ncdhw forward calls take the channels-last
  // copies on every device, onto whatever the ndhwc call gets there (vol2col without the
  // implicit GEMM), so that volume_transpose runs where the NVIDIA kernels do not: on the
  // simulator (scripts/oclgrind-ci.sh) and PoCL. Unset or "auto": only where the implicit GEMM
  // takes the call. Never timed: gemm_paths() says when it is on.
  static bool ncdhw_copies_requested();
  // y [batch, cols, rows] = x [batch, rows, cols] transposed per batch item (volume_transpose).
  void transpose_batched(const Tensor& x, int64_t batch, int64_t rows, int64_t cols, Tensor& y);
  // [N, C, V] x as [N, V, C]: x itself when C is 1, else a transposed copy made in `store`.
  const Tensor& ncdhw_as_ndhwc(const Tensor& x, int64_t batch, int64_t channels, Tensor& store);
  // conv1d as an implicit GEMM on the pipeline (conv1d.cpp): f16, tf32 or int8 weights on
  // NVIDIA, channels a multiple of a K tile (64 halves, 32 floats, 128 int8).
  bool conv1d_implicit(int k, const Weight& w, int64_t channels) const;
  void to_half(const Tensor& x, Tensor& xh, int64_t count);  // fp32 -> f16, count elements
  void to_bf16(const Tensor& x, Tensor& xb, int64_t count);  // fp32 -> bf16 (conv3d_igemm.cpp)
  // x's bf16 bits in an f16 buffer of x.numel(): a held tensor's kept copy (made now if it has
  // none yet), else a fresh conversion into `scratch`.
  const Tensor& bf16_copy(const Tensor& x, Tensor& scratch);
  // The bf16 buffer the op writing y is to fill beside y (will_hold_read_only noticed y's
  // storage, the same size), else null.
  Tensor* bf16_copy_to_write(const Tensor& y);
  // Whether a bf16 implicit GEMM's weight is permuted straight to bf16 (the *_bf16 permutes of
  // conv3d_bf16_nvidia.cl; STAGEBENCH_CONV_BF16_PRODUCERS=off: fp32, then f32_to_bf16).
  bool bf16_weight(const Conv3dShape& s) const;
  // int8 x int8 tensor cores with the calibrated activation scale (static quantization).
  void linear_mma_s8(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep, int64_t m);
  // gemm_batched's f32 kernels (gemm_clblast.cpp): CLBlast's GemmBatched (the untuned path for
  // products of library size), one Gemm per item, GemmStridedBatched where the offsets step
  // evenly (>= 0), and our gemm_batched_small for many narrow products. The tiled kernel
  // (gemm_tiled.cl) is no candidate: it reads f16/int8 weights only, at ld = K.
  enum class BatchedKernel : uint8_t {
    clblast_batched,
    clblast_per_item,
    clblast_strided,
    clblast_strided_groups,  // one strided batch per residue class (strided_groups())
    small_direct             // our kernel for many small products (gemm_small.cpp)
  };
  // Item t's offset as base + (t / inner) * outer + (t % inner) * step: attention's items,
  // batch-major over heads, and any evenly stepping list (inner = the count).
  struct ItemStrides {
    int64_t base = 0, outer = 0, step = 0, inner = 1;
  };
  // The strides that give every offset of the list, or nullopt when no such form does.
  static std::optional<ItemStrides> item_strides(const std::vector<int64_t>& offsets);
  // Several products too narrow for a library's tiles (min(m, n) <= 16, m n <= 4096) whose
  // operands' offsets all have ItemStrides: gemm_batched_small's products.
  static bool small_products(const GemmBatch& g);
  // A product too narrow for a library's tiles (min(m, n) <= 16, m n <= 4096).
  static bool narrow_product(const GemmBatch& g);
  // bias (one item's [n], added to each row of C) only where fuses_gemm_bias says so.
  void gemm_batched_small(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c,
                          const Tensor* bias = nullptr);
  // f16/tf32 gemm_batched of one item on the mma kernels (gemm_batched_mma.cpp); batches of
  // several items at those precisions are computed in fp32.
  bool gemm_batched_on_mma(const GemmBatch& g) const;
  // Of those, the ones computed in fp32 by gemm_batched_small instead (gemm_clblast.cpp).
  bool gemm_batched_mma_small(const GemmBatch& g) const;
  void gemm_batched_mma(const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c);
  // Its product once x [M, K] and w [N, K] are packed (into C with alpha, beta and the bias).
  void gemm_batched_mma_product(const GemmBatch& g, const Tensor& x, const Tensor& w, Tensor& c);
  // Whether linear_grads.cpp's one launch packs this product's operands: a one-item f16 product
  // on the pipelined tensor-core path, of no bias, that gemm_batched_mma would pack itself.
  bool linear_grads_packs(const GemmBatch& g) const;
  static const char* batched_kernel_name(BatchedKernel k);
  // The fewest interleaved classes (items r, r + g, r + 2g, ...) in which every operand's offsets
  // step evenly, so that each class is one strided batch: attention's items (b, head) in b-major
  // order step evenly within a head. 0 when no g up to 64 does it.
  static size_t strided_groups(const GemmBatch& g);
  // STAGEBENCH_GEMM_BATCHED=batched|per_item|strided_batched|strided_groups|small forces one
  // routine for every fp32 batch, to compare them on a model (docs/method.md); `library`, CLBlast's
  // untuned choice (Gemm for one item, GemmBatched for several); unset: nullopt.
  // Throws std::invalid_argument for an unknown name or one these offsets cannot take.
  static std::optional<BatchedKernel> forced_batched_kernel(const GemmBatch& g);
  void gemm_batched_f32(BatchedKernel kernel, const GemmBatch& g, const Tensor& a, const Tensor& b,
                        Tensor& c);
  // Times every candidate that can express g on a scratch copy of C (c itself is not written)
  // and returns the median-fastest.
  BatchedKernel tune_gemm_batched(const GemmBatch& g, const Tensor& a, const Tensor& b,
                                  const Tensor& c);

  // attention_fused in fp32 on any device (kernels/attention_masked.cl): the first kernel of
  // kFusedAttentionKernels that takes dh, was built, and whose CL_KERNEL_LOCAL_MEM_SIZE fits
  // the device's local memory, or null. Builds the portable program on first use.
  const FusedAttentionKernel* fused_attention_kernel(int64_t dh) const;
  // Per kFusedAttentionKernels entry: its built CL_KERNEL_LOCAL_MEM_SIZE, or 0 where the
  // program left it out; filled on first use.
  mutable std::vector<uint64_t> fused_attention_built_bytes_;
  // attention_fused in fp32 on any device (kernels/attention_masked.cl).
  void attention_fused_portable(const AttentionShape& s, const Tensor& q, const Tensor& k,
                                const Tensor& v, const Tensor* key_bias, Tensor& out);

  // rel_attention_fused in fp16 or tf32 on NVIDIA tensor cores (kernels/attention_relative_*.cl).
  void rel_attention_mma(const RelAttentionShape& s, const Tensor& q, const Tensor& k,
                         const Tensor& v, const Tensor& rel_k, const Tensor& content_bias,
                         const Tensor& pos_bias, Tensor& out);
  // attention_fused in fp16 or tf32 on NVIDIA tensor cores (kernels/attention_mma_nvidia.cl,
  // attention_tf32_nvidia.cl), dh 64.
  void attention_mma(const AttentionShape& s, const Tensor& q, const Tensor& k, const Tensor& v,
                     const Tensor* key_bias, Tensor& out);

  // conv3d.cpp: conv3d and its backward ops as column GEMMs (kernels/conv3d.cl), their products
  // in CLBlast in f32; tf32/f16 on the NVIDIA mma kernels (gemm_batched_mma) where present.
  // conv3d_gemm with its k dimension split (conv3d.cpp says why); a_step and b_step: how far one
  // unit of k moves in a and b. c is [m, n] at offset 0, ld n.
  void conv3d_gemm_split_k(Precision p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                           const Tensor& a, int64_t a_off, int64_t lda, int64_t a_step,
                           const Tensor& b, int64_t b_off, int64_t ldb, int64_t b_step, float beta,
                           Tensor& c);
  void conv3d_gemm(Precision p, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const Tensor& a,
                   int64_t a_off, int64_t lda, const Tensor& b, int64_t b_off, int64_t ldb,
                   float beta, Tensor& c, int64_t c_off, int64_t ldc);
  void conv3d_columns(const char* kernel_name, const Conv3dShape& s, const Tensor& in, int64_t r0,
                      int64_t rows, int64_t base, int64_t items, Tensor& out);

  std::shared_ptr<ClRuntime> runtime_;
  std::shared_ptr<BufferPool> pool_;
  KernelLog kernel_log_;
  AllocationTracker host_tracker_;  // stays at zero: this backend keeps no host tensors
  EventLog events_;
  LaunchRecorder recorder_;        // replay35: the launch list under way, if any
  std::string clone_unsupported_;  // replay35: launch_recording_unsupported(), at construction
  std::string device_name_;
  cl::Buffer dummy_;
  std::map<std::string, cl::Kernel> kernels_;
  std::string portable_source_;  // the portable program for this device, built on first use
  std::map<std::string, cl::Kernel> mma_kernels_;
  mutable std::optional<bool> mma_probe_, bulk_copies_;
  std::map<std::string, BatchedKernel> autotuned_;  // gemm_batched autotune: shape key -> kernel
  std::map<std::string, PipeTile> pipe_tiles_;      // the pipeline's measured kernel per shape
  std::map<std::string, int> split_ks_;             // gemm_batched's measured K split per shape
  SplitKKnob split_k_knob_ = split_k_knob();        // STAGEBENCH_GEMM_SPLIT_K, at construction
  int forced_split_k_ = 0;                          // force_split_k()
  WgmmaDevice wgmma_device_;                        // what the path choice knows (gemm_path.h)
  WgmmaKnob wgmma_knob_ = WgmmaKnob::automatic;     // STAGEBENCH_WGMMA, read at construction
  std::string wgmma_status_;                        // gemm_paths(): the decision and its why
  std::map<int, cl::Program> wgmma_programs_;       // by tile width, built at construction
  std::map<int, cl::Kernel> wgmma_kernels_;
  ConvIgemmKnob conv_igemm_knob_ = conv_igemm_knob();  // STAGEBENCH_CONV_IGEMM, at construction
  ConvDwBf16Knob conv_dw_bf16_knob_ = conv_dw_bf16_knob();  // STAGEBENCH_CONV_DW_BF16
  bool conv_narrow_ = conv_narrow_requested();        // STAGEBENCH_CONV_NARROW (conv3d_narrow.cpp)
  bool conv_narrow_v2_ = conv_narrow_v2_requested();  // the same, =v1 off
  bool row_kernels_vec_ = row_kernels_vec_requested();  // STAGEBENCH_ROW_KERNELS (norms.cpp)
  bool layernorm_warp_ = layernorm_warp_requested();    // STAGEBENCH_LAYERNORM_WARP
  bool sum_axis1_split_ = sum_axis1_split_requested();  // STAGEBENCH_SUM_AXIS1 (dfm33)
  bool pool_vec8_ = pool_vec8_requested();              // STAGEBENCH_POOL_VEC8
  bool thin_gemm_small_ = thin_gemm_small_requested();  // STAGEBENCH_THIN_GEMM (dfm35)
  bool linear_grads_one_pack_ = linear_grads_one_pack_requested();  // STAGEBENCH_LINEAR_GRADS
  bool layernorm_backward_merged_ = layernorm_backward_merged_requested();  // (dfm36)
  ConvBf16ReuseKnob conv_bf16_reuse_knob_ = conv_bf16_reuse_knob();  // STAGEBENCH_CONV_BF16_REUSE
  struct Held {
    int holds = 0;
    Tensor source;  // keeps the storage (and so the key) alive while held
    Tensor bf16;    // its bf16 copy, once a bf16 convolution has read it
  };
  std::map<const Storage*, Held> held_;
  struct Noticed {
    Tensor target;  // keeps the storage (and so the key) alive until the hold
    Tensor bf16;    // written by the last op that wrote the target since the notice
  };
  std::map<const Storage*, Noticed> noticed_;                 // will_hold_read_only
  Bf16ProducersKnob bf16_producers_ = bf16_producers_knob();  // STAGEBENCH_CONV_BF16_PRODUCERS
  bool bf16_copies_anywhere_ = bf16_producers_ == Bf16ProducersKnob::anywhere;
  bool phase_store_ = conv_phase_store_requested();  // STAGEBENCH_CONV_PHASE_STORE
  std::map<std::string, cl::Kernel> conv_igemm_kernels_;
  std::map<std::string, size_t> conv_igemm_tiles_;  // the measured tile per shape (an index)
  FaultPlan faults_ = FaultPlan::from_env();        // STAGEBENCH_FAULT: tests of device faults
  std::string library_tuning_;  // the CLBlast tuning applied at construction (clblast_tuning.h)
  bool portable_gemm_ = false;  // STAGEBENCH_F32_GEMM=portable (gemm_portable)
  // STAGEBENCH_EVENTS_AT_SYNC=1: read the profiling events at every synchronize() and download,
  // inside the sample, as before 2026-11-28 (for A/B runs of the method; kernel_log.h's drain).
  bool events_at_sync_ = false;
  bool ncdhw_copies_ = ncdhw_copies_requested();  // STAGEBENCH_CONV_NCDHW, at construction

  // --- Enformer's conv GEMMs (enf33, issue 27; gemm_mma.cpp, conv1d.cpp, gemm_wgmma.cpp) ---
 public:
  // STAGEBENCH_CONV_FAST_LOADS, on unless "off": 1-tap convs are plain GEMMs and the interior
  // tiles copy unchecked. Off (the path before enf33, for A/B runs): a 1-tap conv1d goes through
  // the implicit convolution's addressing, and every tile of one copies A with bounds checks (the
  // wgmma kernel built with WG_CONV_CHECKED).
  static bool conv_fast_loads();
  // STAGEBENCH_TILE_WITH_EPILOGUE, on unless "off": the tile width of a product whose epilogue
  // reads a residual or writes f16 is timed with that epilogue, on a scratch output of y's dtype
  // (the epilogue's traffic decides between tiles: Enformer's pointwise convs ran 1.47-1.85x as
  // long as their pools' logits GEMMs of the same shape, results/h200/enf32-2026-11-29). Off:
  // timed without it, as pipe_tile() does.
  static bool tile_with_epilogue();  // pipe_tile() is then given the call's epilogue

 private:
  // f16 images of held parameters, written by AdamW (dfm32, issue 27; bf16_copies.cpp).
  // will_hold_read_only(t, f16) before the optimizer's step on t: do_adamw writes, beside t's
  // fp32 values, the f16 image of each range of t that an f16 wgmma product has read as its W
  // operand (registered at that product's first read, packed that once); while t is held, those
  // products read the image instead of packing the weight (STAGEBENCH_F16_IMAGES=off: never).
 public:
  void write_f16_images_anywhere(bool on) { f16_images_anywhere_ = on; }
  // Tests: STAGEBENCH_LAYERNORM_BACKWARD's choice, set (true: merged) and the last returned.
  bool layernorm_backward_merged(bool on) { return std::exchange(layernorm_backward_merged_, on); }
  // The f16 image of `count` elements of `t` from element `offset` (t a flat_parts part or the
  // flat tensor itself): defined while t's flat tensor is held and its last AdamW step wrote
  // that range; else undefined, and the range is registered for the next step's image.
  Tensor held_f16_image(const Tensor& t, int64_t offset, int64_t count);

 private:
  struct F16Image {
    Tensor source;  // the flat tensor: keeps the storage (and so the key) alive
    Tensor image;   // 2 halves an fp32 element: each range at its fp32 byte offset
    std::map<int64_t, int64_t> wanted, written;  // ranges (start -> count), by the last step
    std::map<int64_t, Tensor> views;             // the f16 sub-buffers of written ranges
    Tensor starts;                               // per part_alignment() block: its range's start
    bool starts_stale = true;
  };
  bool f16_images_on() const;
  void notice_f16_image(const Tensor& t);
  // The image do_adamw is to write for param (noticed), else null; readies its start table.
  F16Image* f16_image_to_write(const Tensor& param);
  std::map<const Storage*, F16Image> f16_images_;
  std::map<const Storage*, Tensor> f16_noticed_;
  static bool f16_images_requested();              // STAGEBENCH_F16_IMAGES: on or off
  bool f16_images_off_ = !f16_images_requested();  // at construction
  bool f16_images_anywhere_ = false;               // tests: on devices without wgmma too

  // f16 copies of held activations (dfm35, issue 27; f16_activations.cpp).
  // will_hold_read_only(t, f16) before t's producer: a producer that can (embedding, the NVIDIA
  // LayerNorm, activation_dropout) writes t's f16 copy beside it; while t is held, an f16 product
  // that reads all of t as its untransposed x operand reads the copy, and with its W's image
  // packs nothing (DeepFM's forward: a pack launch a product). A copy lives until t's next notice
  // (or a look-up that finds t not held); the caller promises that a tensor held again without a
  // new notice was not written since. STAGEBENCH_F16_ACTIVATIONS=off: no copies.
 public:
  // t's copy of `count` elements while t is held, else undefined.
  Tensor held_f16_copy(const Tensor& t, int64_t count);

 private:
  // The f16 buffer to write beside y (noticed and on), else null.
  const Tensor* f16_copy_to_write(const Tensor& y);
  void notice_f16_copy(const Tensor& t);  // from will_hold_read_only(t, f16)
  struct F16Copy {
    Tensor source;  // keeps the storage (and so the key) alive
    Tensor copy;    // numel halves, written by source's producer since the notice
  };
  std::map<const Storage*, F16Copy> f16_copies_;
  std::map<const Storage*, Tensor> f16_copy_noticed_;
  bool f16_activations_ = f16_activations_requested();  // STAGEBENCH_F16_ACTIVATIONS
};

// A size or index as the kernels' 32-bit int; throws when it does not fit.
int to_cl_int(int64_t v, const char* what);

// Work-items: n rounded up to a multiple of `multiple`.
inline size_t round_up(int64_t n, size_t multiple) {
  const auto u = static_cast<size_t>(n);
  return (u + multiple - 1) / multiple * multiple;
}

// The launch of an element-wise kernel taking four consecutive elements an item (groups of 256;
// elementwise.cpp).
cl::NDRange quads(int64_t n);

// Throws std::invalid_argument "<op>: <what>" unless ok.
inline void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(op) + ": " + what);
}

}  // namespace sb
