// The optimizer step (kernels/optimizer.cl): AdamW, one kernel over the elements; where a hold
// for f16 reads was noticed, the kernel that also writes the f16 image (bf16_copies.cpp).
#include <cmath>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {

void OpenCLBackend::do_adamw(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                             const AdamWStep& s) {
  const int64_t n = param.numel();
  const auto t = static_cast<double>(s.step);
  const auto bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), t));
  const auto bc2 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta2), t));
  const float decay = 1.0f - s.lr * s.weight_decay;
  const cl::NDRange global(round_up(n, 256)), local(256);
  if (F16Image* image = f16_image_to_write(param)) {
    launch("adamw_f16_image", global, local, param, grad, m, v, s.lr, s.beta1, s.beta2, s.eps,
           decay, bc1, bc2, s.grad_scale, to_cl_int(n, "adamw n"), image->starts,
           to_cl_int(part_alignment(), "part alignment"), image->image);
    return;
  }
  launch("adamw", global, local, param, grad, m, v, s.lr, s.beta1, s.beta2, s.eps, decay, bc1, bc2,
         s.grad_scale, n);
}

}  // namespace sb
