// attention_pack_<precision>: K and V of the masked attention in the mma's operand format, once
// per call (attention_mma_nvidia.cl says why), included once per precision after its row of the
// table (AT_NAME, AT_BITS: the operand's bits, AT_TO_BITS(x): fp32 to those bits). One
// work-group per 64 keys of one (batch, head): kp[bh][key][d], vt[bh][d][key]; keys past n are
// zeros up to the next multiple of 64 (n_pad). half_in: k and v hold half bits.
#define FA_PACK_JOIN2(a, b) a##b
#define FA_PACK_JOIN(a, b) FA_PACK_JOIN2(a, b)

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void FA_PACK_JOIN(attention_pack_, AT_NAME)(__global const float* k, __global const float* v,
                                            int n, int n_pad, int heads, int ld_k, int ld_v,
                                            int k_col, int v_col, __global AT_BITS* kp,
                                            __global AT_BITS* vt, int half_in) {
  __local float tile[64 * 65];
  const int tid = get_local_id(0);
  const int k0 = get_group_id(0) * 64, bh = get_group_id(1), b = bh / heads, h = bh % heads;
  for (int i = tid; i < 64 * 64; i += 256) {  // K: coalesced along d on both sides
    const int key = i >> 6, d = i & 63;
    const bool in = k0 + key < n;
    const long row = b * n + k0 + key, col = h * FA_DH + d;
    const float x = in ? act_load(k, row * ld_k + k_col + col, half_in) : 0.0f;
    kp[((long)bh * n_pad + k0 + key) * FA_DH + d] = AT_TO_BITS(x);
    tile[key * 65 + d] = in ? act_load(v, row * ld_v + v_col + col, half_in) : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = tid; i < 64 * 64; i += 256) {  // V^T: coalesced along keys when written
    const int d = i >> 6, key = i & 63;
    vt[((long)bh * FA_DH + d) * n_pad + k0 + key] = AT_TO_BITS(tile[key * 65 + d]);
  }
}

#undef FA_PACK_JOIN2
#undef FA_PACK_JOIN
