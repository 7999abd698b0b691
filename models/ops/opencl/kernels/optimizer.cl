// The optimizer step: an item per element.

// One AdamW step (sb::AdamWStep) of element i in place, its new value returned; bc1 = 1 - beta1^t,
// bc2 = 1 - beta2^t and decay = 1 - lr weight_decay come from the host.
float adamw_element(__global float* p, __global const float* grad, __global float* m,
                    __global float* v, float lr, float beta1, float beta2, float eps, float decay,
                    float bc1, float bc2, float grad_scale, int i) {
  const float g = grad[i] * grad_scale;
  const float mi = beta1 * m[i] + (1.0f - beta1) * g;
  const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  const float pi = p[i] * decay - lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
  p[i] = pi;
  return pi;
}

__kernel void adamw(__global float* p, __global const float* grad, __global float* m,
                    __global float* v, float lr, float beta1, float beta2, float eps, float decay,
                    float bc1, float bc2, float grad_scale, int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  adamw_element(p, grad, m, v, lr, beta1, beta2, eps, decay, bc1, bc2, grad_scale, i);
}

// As adamw, and the new value's f16 (vstore_half's rounding, as the f16 products' packs in
// gemm_pack.cl) into the image (bf16_copies.cpp): starts[i / align] is the start of the range
// element i lies in (-1: no image wanted), whose image begins at half 2 * start.
__kernel void adamw_f16_image(__global float* p, __global const float* grad, __global float* m,
                              __global float* v, float lr, float beta1, float beta2, float eps,
                              float decay, float bc1, float bc2, float grad_scale, int n,
                              __global const int* starts, int align, __global half* image) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const float pi =
      adamw_element(p, grad, m, v, lr, beta1, beta2, eps, decay, bc1, bc2, grad_scale, i);
  const int start = starts[i / align];
  if (start >= 0) vstore_half(pi, i + start, image);
}
