// The tf32 row of the tensor-core attention kernels' precision table (attention_f16_nvidia.cl
// names its entries), for stages that compute in fp32 with TF32 allowed (TensorRT's and
// PyTorch's TF32 modes). m16n8k8 fragments: a k step covers 8 dimensions or keys, one fp32
// (rounded to tf32) a register; a 16-byte chunk holds 4. ldmatrix's 8 x 8 b16 matrices are
// 8 x 4 fp32, exactly m16n8k8's A and B fragments, so K and V^T tiles load as for f16.
#define AT_NAME tf32
#define AT_MMA mma_tf32
#define AT_KSTEP 8
#define AT_EPC 4
#define AT_BITS uint
#define AT_TO_BITS(x) to_tf32(x)
#define AT_FRAG(r) to_tf32(as_float(r))
#define AT_P_IN_LOCAL 1
#define AT_HALF_IO 0  // fp32 stages only
#define AT_A_FRAG(a, s, t, X)                                                    \
  {                                                                              \
    const int d_ = (s) * 8 + (t);                                                \
    (a)[0] = to_tf32(X(0, d_));                                                  \
    (a)[1] = to_tf32(X(8, d_));                                                  \
    (a)[2] = to_tf32(X(0, d_ + 4));                                              \
    (a)[3] = to_tf32(X(8, d_ + 4));                                              \
  }
// P's accumulator layout (row g, keys 2t, 2t + 1) is not m16n8k8's A layout (row g, keys t and
// t + 4): the warp writes its 16 x 64 P tile to local memory (rows `pitch` 16-byte chunks
// apart) and reads each key step back by ldmatrix, rounding to tf32 in registers.
#define AT_P_STASH(s, pw, pitch, g, t) stash_scores(s, (__local float*)(pw), (pitch) * 4, g, t);
#define AT_P_FRAG(a, s, kk, pw, pitch, lane) \
  ldmatrix_x4_tf32((pw) + ((lane) & 15) * (pitch) + (kk) * 2 + ((lane) >> 4), a);
// V's B fragments (key t | t + 4, dimension g) are 32-bit words, which ldmatrix.trans cannot
// transpose: they are read one by one from rows padded so that the four keys a load touches
// are 8 banks apart (pitch dv / 4 + 2 chunks).
#define AT_V_PITCH(dv) ((dv) / 4 + 2)
#define AT_V_ROWS_AT(rows, pitch, kk, lane) \
  ((__local const float*)(rows) + ((kk) * 8 + ((lane) & 3)) * (pitch) * 4 + ((lane) >> 2))
#define AT_V_ROWS_FRAG(vb, at, pitch, ip)                  \
  {                                                        \
    (vb)[0] = to_tf32((at)[(ip) * 16]);                    \
    (vb)[1] = to_tf32((at)[(ip) * 16 + 16 * (pitch)]);     \
    (vb)[2] = to_tf32((at)[(ip) * 16 + 8]);                \
    (vb)[3] = to_tf32((at)[(ip) * 16 + 8 + 16 * (pitch)]); \
  }
