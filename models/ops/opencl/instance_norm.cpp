// InstanceNorm3d and its backward on OpenCL (kernels/instance_norm.cl says why three steps):
// partial sums over voxel chunks, a fixed-order sum per instance, an elementwise pass.
#include "models/ops/knobs.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/volume_chunks.h"

namespace sb {
namespace {

constexpr size_t kApplyGroup = 256;

}  // namespace

bool inorm_vec4_requested() {
  return read_on_off_knob("STAGEBENCH_INORM_VEC4");
}

// Whether the elementwise passes take four elements an item (instance_norm.cl's
// inorm_apply4_at: four channels of one voxel, or four voxels of one instance).
bool OpenCLBackend::inorm_vec4_fits(bool ndhwc, int64_t channels, int64_t voxels) const {
  return inorm_vec4_ && (ndhwc ? channels : voxels) % 4 == 0;
}

void OpenCLBackend::instance_norm_sums(const Tensor& x, const Tensor* dy, bool ndhwc, int64_t batch,
                                       int64_t channels, int64_t voxels, Tensor& partials,
                                       int* chunks) {
  const size_t wg = reduce_group();
  const VolumeChunks p = volume_chunks(batch, channels, voxels, ndhwc, wg);
  const int64_t slots = batch * channels * p.chunks * (dy ? 4 : 2);
  partials = empty({2 * slots});  // room for double
  launch("instance_norm_partials",
         cl::NDRange(static_cast<size_t>(p.chunks) * wg, static_cast<size_t>(p.blocks),
                     static_cast<size_t>(batch)),
         cl::NDRange(wg, 1, 1), x, dy, dy ? 1 : 0, to_cl_int(channels, "instance_norm channels"),
         to_cl_int(voxels, "instance_norm voxels"), ndhwc ? 1 : 0, p.cb_size, p.chunk, partials);
  *chunks = p.chunks;
}

void OpenCLBackend::do_instance_norm(const Tensor& x, Layout3d layout, int64_t batch,
                                     int64_t channels, const Tensor& gamma, const Tensor& beta,
                                     float eps, Tensor& y, const NormEpilogue& ep) {
  const int64_t count = batch * channels, voxels = x.numel() / count;
  const int total = to_cl_int(x.numel(), "instance_norm size");
  const bool ndhwc = layout == Layout3d::ndhwc;
  const int c = to_cl_int(channels, "instance_norm channels");
  const int v = to_cl_int(voxels, "instance_norm voxels");
  Tensor partials;
  int chunks = 0;
  instance_norm_sums(x, nullptr, ndhwc, batch, channels, voxels, partials, &chunks);
  Tensor coef = empty({2 * count});
  const size_t wg = reduce_group();
  launch("instance_norm_finalize", cl::NDRange(static_cast<size_t>(count) * wg), cl::NDRange(wg),
         partials, x, c, v, ndhwc ? 1 : 0, chunks, gamma, beta, eps, coef);
  if (inorm_vec4_fits(ndhwc, channels, voxels)) {
    const int total4 = total / 4;
    const cl::NDRange global4(round_up(total4, kApplyGroup));
    if (Tensor* yb = bf16_copy_to_write(y))
      launch("instance_norm_apply4_bf16", global4, cl::NDRange(kApplyGroup), x, c, v, ndhwc ? 1 : 0,
             coef, y, ep.residual, ep.residual ? 1 : 0, static_cast<int>(ep.act), total4, *yb);
    else
      launch("instance_norm_apply4", global4, cl::NDRange(kApplyGroup), x, c, v, ndhwc ? 1 : 0,
             coef, y, ep.residual, ep.residual ? 1 : 0, static_cast<int>(ep.act), total4);
    return;
  }
  const cl::NDRange global(round_up(total, kApplyGroup));
  if (Tensor* yb = bf16_copy_to_write(y))  // y is about to be held for bf16 reads
    launch("instance_norm_apply_bf16", global, cl::NDRange(kApplyGroup), x, c, v, ndhwc ? 1 : 0,
           coef, y, ep.residual, ep.residual ? 1 : 0, static_cast<int>(ep.act), total, *yb);
  else
    launch("instance_norm_apply", global, cl::NDRange(kApplyGroup), x, c, v, ndhwc ? 1 : 0, coef, y,
           ep.residual, ep.residual ? 1 : 0, static_cast<int>(ep.act), total);
}

void OpenCLBackend::do_instance_norm_backward(const Tensor& x, Layout3d layout, int64_t batch,
                                              int64_t channels, const Tensor& gamma, float eps,
                                              const Tensor& dy, Tensor& dx, Tensor& dgamma,
                                              Tensor& dbeta) {
  const int64_t count = batch * channels, voxels = x.numel() / count;
  const int total = to_cl_int(x.numel(), "instance_norm size");
  const bool ndhwc = layout == Layout3d::ndhwc;
  const int c = to_cl_int(channels, "instance_norm channels");
  const int v = to_cl_int(voxels, "instance_norm voxels");
  Tensor partials;
  int chunks = 0;
  instance_norm_sums(x, &dy, ndhwc, batch, channels, voxels, partials, &chunks);
  Tensor sums = empty({4 * count});  // 2 per instance, room for double
  Tensor coef = empty({4 * count});
  const size_t wg = reduce_group();
  launch("instance_norm_backward_finalize", cl::NDRange(static_cast<size_t>(count) * wg),
         cl::NDRange(wg), partials, x, c, v, ndhwc ? 1 : 0, chunks, gamma, eps, sums, coef);
  if (inorm_vec4_fits(ndhwc, channels, voxels)) {
    const int total4 = total / 4;
    const cl::NDRange global4(round_up(total4, kApplyGroup));
    if (Tensor* dxb = bf16_copy_to_write(dx))
      launch("instance_norm_backward_apply4_bf16", global4, cl::NDRange(kApplyGroup), x, dy, c, v,
             ndhwc ? 1 : 0, coef, dx, total4, *dxb);
    else
      launch("instance_norm_backward_apply4", global4, cl::NDRange(kApplyGroup), x, dy, c, v,
             ndhwc ? 1 : 0, coef, dx, total4);
  } else {
    const cl::NDRange global(round_up(total, kApplyGroup));
    if (Tensor* dxb = bf16_copy_to_write(dx))  // dx is about to be held for bf16 reads
      launch("instance_norm_backward_apply_bf16", global, cl::NDRange(kApplyGroup), x, dy, c, v,
             ndhwc ? 1 : 0, coef, dx, total, *dxb);
    else
      launch("instance_norm_backward_apply", global, cl::NDRange(kApplyGroup), x, dy, c, v,
             ndhwc ? 1 : 0, coef, dx, total);
  }
  launch("instance_norm_backward_params", cl::NDRange(round_up(channels, 64)), cl::NDRange(64),
         sums, batch, channels, dgamma, dbeta);
}

}  // namespace sb
