// Enformer's attention pooling in one pass: per channel, softmax over each pair of positions
// (2l, 2l+1) and the weighted sum, the weights never leaving registers. (The separate passes are
// softmax_axis1 and sum_axis1.)

inline float pair_weight(float first, float second) {
  return 1.0f / (1.0f + exp(second - first));  // softmax(first, second)[0], overflow-safe
}

// x and y: fp32, or half bits where `halves` says (ACT_HALF_X, ACT_HALF_Y: a half-precision
// stage's producer wrote x so, its consumer reads y so); logits fp32. scale, shift (per channel,
// where has_*) and act are the next conv block's input transform applied before the store
// (issue 27: the pool's output has that conv as its only reader, which then reads y in place
// instead of a channels_to_f16 pass over it); none of them: the plain pool.
inline float pool_out(float v, __global const float* scale, int has_scale,
                      __global const float* shift, int has_shift, int act, int c) {
  if (has_scale) v *= scale[c];
  if (has_shift) v += shift[c];
  return apply_act(v, act);
}

__kernel void attention_pool_fused(__global const float* x, __global const float* logits,
                                   int length, int half_len, int channels, int n,
                                   __global float* y, int halves, __global const float* scale,
                                   int has_scale, __global const float* shift, int has_shift,
                                   int act) {
  const int half_x = halves & ACT_HALF_X, half_y = halves & ACT_HALF_Y;
  const int i = get_global_id(0);
  if (i >= n) return;
  const int c = i % channels;
  const int bl = i / channels;
  const int b = bl / half_len;
  const int l = bl - b * half_len;
  const size_t first = ((size_t)b * length + 2 * l) * channels + c;
  const float w0 = pair_weight(logits[first], logits[first + channels]);
  const float v =
      act_load(x, first, half_x) * w0 + act_load(x, first + channels, half_x) * (1.0f - w0);
  act_store(y, i, pool_out(v, scale, has_scale, shift, has_shift, act, c), half_y);
}

// The same, eight consecutive channels an item (channels a multiple of 8): 16-byte loads and
// stores where the scalar kernel moved 2 or 4 bytes a load (the stem's pool, 196,608 x 768,
// ran at 2.75 TB/s so: results/h200/enf32-2026-11-29).
__kernel void attention_pool_vec8(__global const float* x, __global const float* logits,
                                  int length, int half_len, int channels, int n8,
                                  __global float* y, int halves, __global const float* scale,
                                  int has_scale, __global const float* shift, int has_shift,
                                  int act) {
  const int half_x = halves & ACT_HALF_X, half_y = halves & ACT_HALF_Y;
  const int item = get_global_id(0);
  if (item >= n8) return;
  const int i = item * 8, c = i % channels;
  const int bl = i / channels;
  const int b = bl / half_len;
  const int l = bl - b * half_len;
  const size_t first = ((size_t)b * length + 2 * l) * channels + c;
  float x0[8], x1[8], out[8];
  act_load8(x, first, half_x, 1, x0);
  act_load8(x, first + channels, half_x, 1, x1);
  const float4 a0 = LOAD4(logits, first), a1 = LOAD4(logits, first + 4);
  const float4 b0 = LOAD4(logits, first + channels), b1 = LOAD4(logits, first + channels + 4);
  const float la[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
  const float lb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const float w0 = pair_weight(la[k], lb[k]);
    out[k] = pool_out(x0[k] * w0 + x1[k] * (1.0f - w0), scale, has_scale, shift, has_shift, act,
                      c + k);
  }
  act_store8(y, i, out, half_y);
}
