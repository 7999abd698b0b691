// What the separate-pass attentions add to their logits between the GEMMs: the key-padding
// bias (masked attention) and the relative-position term (relative attention).

// logits[bh, i, j] += key_bias[bh / heads, j]; logits [B * heads, n, n], key_bias [B, n].
__kernel void add_key_bias(__global float* logits, __global const float* key_bias, int heads,
                           int n, int total) {
  const int e = get_global_id(0) * 4;  // four elements an item (elementwise.cl says why)
  if (e >= total) return;
  const int j = e % n, bh = e / n / n;
  __global const float* bias = key_bias + (bh / heads) * n;
  if ((n & 3) == 0) {  // the four lie in one row, and bias + j is 16-byte aligned
    *(__global float4*)(logits + e) += *(__global const float4*)(bias + j);
    return;
  }
  for (int f = e; f < min(e + 4, total); ++f)
    logits[f] += key_bias[(f / n / n / heads) * n + f % n];
}

// logits[bh, i, j] += rel[bh, i, (n - 1) + (j - i)]; logits [BH, n, n], rel [BH, n, 2n - 1].
__kernel void rel_shift_add(__global float* logits, __global const float* rel, int n,
                            int total) {
  const int e = get_global_id(0);
  if (e >= total) return;
  const int j = e % n;
  const int row = e / n;  // bh * n + i
  const int i = row % n;
  logits[e] += rel[(size_t)row * (2 * n - 1) + (n - 1) + (j - i)];
}
