// Enformer's attention pooling in one pass: per channel, softmax over each pair of positions
// (2l, 2l+1) and the weighted sum, the weights never leaving registers. (The separate passes are
// softmax_axis1 and sum_axis1.)

inline float pair_weight(float first, float second) {
  return 1.0f / (1.0f + exp(second - first));  // softmax(first, second)[0], overflow-safe
}

// x and y: fp32, or half bits where `halves` says (ACT_HALF_X, ACT_HALF_Y: a half-precision
// stage's producer wrote x so, its consumer reads y so); logits fp32.
__kernel void attention_pool_fused(__global const float* x, __global const float* logits,
                                   int length, int half_len, int channels, int n,
                                   __global float* y, int halves) {
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
  act_store(y, i, v, half_y);
}
