// The fp16 row of the tensor-core attention kernels' precision table: what the masked body
// (attention_mma_body.cl) and the relative body (attention_relative_body.cl) take from a
// precision. attention_mma_source.cpp puts it before the f16 instances of the bodies;
// attention_tf32_nvidia.cl is the tf32 row, with the same names (a test checks they match).
// m16n8k16 fragments: a k step covers 16 dimensions or keys, two halves a register; a 16-byte
// chunk of a tile holds 8 of them.
//   AT_NAME                    the precision in kernel names (attention_pack_f16)
//   AT_MMA(c, a0..a3, b0, b1)  the mma instruction
//   AT_KSTEP, AT_EPC           k of the mma; elements a 16-byte chunk
//   AT_BITS, AT_TO_BITS(x)     an operand's bits in global memory, and fp32 to them (the packing
//                              kernel, attention_pack_body.cl)
//   AT_FRAG(r)                 a fragment register read from a tile of raw operands, ready for
//                              AT_MMA (tf32 rounds fp32 there; halves are ready as they are)
//   AT_A_FRAG(a, s, t, X)      the A fragment of k step s, from X(row, d) (row 0: the lane's
//                              row g, 8: g + 8; d: the dimension), fp32 values
//   AT_P_FRAG(a, s, kk, pw, pitch, lane)  P's A fragment of key step kk from the scores s[8][4]
//                              (f16: repacked in registers; tf32: from the warp's P tile pw,
//                              rows `pitch` chunks apart, that AT_P_STASH wrote)
//   AT_P_IN_LOCAL, AT_P_STASH(s, pw, pitch, g, t)  1 where P goes through local memory,
//                              and how the scores get there (the warp's tile pw)
//   AT_HALF_IO                 1 where q and out may hold half bits (the kernels' `halves`)
//   AT_V_ROWS_AT(rows, pitch, kk, lane), AT_V_ROWS_FRAG(vb, at, pitch, ip)  B fragments of
//                              P V for key step kk and dimensions 16 ip .. 16 ip + 15 (n8
//                              tiles 2 ip: vb[0], vb[1] and 2 ip + 1: vb[2], vb[3]) from V in
//                              its natural layout (a row per key, rows `pitch` chunks apart):
//                              the lane's address for step kk, then the fragments at it
//   AT_V_PITCH(dv)             chunks per such V row in local memory (dv values and padding)
// The instance defines AT_FAST (0 or 1): 1 converts P by pairs in one instruction.
#define AT_NAME f16
#define AT_MMA mma_f16
#define AT_KSTEP 16
#define AT_EPC 8
#define AT_BITS ushort
#define AT_TO_BITS(x) to_half_bits(x)
#define AT_FRAG(r) (r)
#define AT_P_IN_LOCAL 0
#define AT_P_STASH(s, pw, pitch, g, t)  // P stays in registers
#define AT_HALF_IO 1
#define AT_A_FRAG(a, s, t, X)                                                    \
  {                                                                              \
    const int d_ = (s) * 16 + 2 * (t);                                           \
    (a)[0] = pack_half2(X(0, d_), X(0, d_ + 1));                                 \
    (a)[1] = pack_half2(X(8, d_), X(8, d_ + 1));                                 \
    (a)[2] = pack_half2(X(0, d_ + 8), X(0, d_ + 9));                             \
    (a)[3] = pack_half2(X(8, d_ + 8), X(8, d_ + 9));                             \
  }
// S's accumulator layout (row g, keys 2t, 2t + 1) is m16n8k16's A layout: tiles 2 kk and
// 2 kk + 1 are key step kk's fragment, with no trip through memory.
#define AT_P_FRAG(a, s, kk, pw, pitch, lane)                                     \
  {                                                                              \
    (a)[0] = pack_p((s)[2 * (kk)][0], (s)[2 * (kk)][1], AT_FAST);                \
    (a)[1] = pack_p((s)[2 * (kk)][2], (s)[2 * (kk)][3], AT_FAST);                \
    (a)[2] = pack_p((s)[2 * (kk) + 1][0], (s)[2 * (kk) + 1][1], AT_FAST);        \
    (a)[3] = pack_p((s)[2 * (kk) + 1][2], (s)[2 * (kk) + 1][3], AT_FAST);        \
  }
// An odd number of chunks per V row: the 8 rows an ldmatrix phase reads hit 8 bank groups.
#define AT_V_PITCH(dv) ((dv) / 8 + 1)
// ldmatrix .trans: keys 16 kk .. + 7 and + 8 .. + 15 of dimensions 16 ip .. + 7, then of
// 16 ip + 8 .. + 15, each 8 x 8 block transposed into B's layout.
#define AT_V_ROWS_AT(rows, pitch, kk, lane) \
  ((__local const float*)((rows) + ((kk) * 16 + ((lane) & 15)) * (pitch) + ((lane) >> 4)))
#define AT_V_ROWS_FRAG(vb, at, pitch, ip) \
  ldmatrix_x4_trans((__local const uint4*)(at) + (ip) * 2, vb)
