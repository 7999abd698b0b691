// The optimizer step: an item per element.

// One AdamW step (sb::AdamWStep) in place; bc1 = 1 - beta1^t, bc2 = 1 - beta2^t and
// decay = 1 - lr weight_decay come from the host.
__kernel void adamw(__global float* p, __global const float* grad, __global float* m,
                    __global float* v, float lr, float beta1, float beta2, float eps, float decay,
                    float bc1, float bc2, float grad_scale, int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const float g = grad[i] * grad_scale;
  const float mi = beta1 * m[i] + (1.0f - beta1) * g;
  const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  p[i] = p[i] * decay - lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
}
