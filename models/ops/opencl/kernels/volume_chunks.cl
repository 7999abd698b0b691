// How instance_norm.cl and volume.cl's soft Dice split a [N, C, V] volume into work-groups
// (issue 27: a work-group per (n, c) instance left most of a GPU idle and, in ndhwc, read one
// float in every C). Group (chunk j, channel block cb, sample n); item t = r cb_size + lane:
// channel cb cb_size + lane, voxels v0 + r, v0 + r + rows, ... (rows = REDUCE_WG / cb_size;
// ndhwc: cb_size channels side by side, so a group reads whole rows of [V, C]; ncdhw: one).

// Element (n, c, v) of x [N, C, V] (ncdhw) or [N, V, C] (ndhwc).
inline size_t chunk_at(int n, int c, int v, int C, int V, int ndhwc) {
  return ndhwc ? ((size_t)n * V + v) * C + c : ((size_t)n * C + c) * V + v;
}

// scratch[k REDUCE_WG + t], k < ns, summed over the rows of each lane into row 0, in a fixed
// tree (rows need not be a power of 2). Starts with a barrier: scratch is written before.
inline void chunk_rows_sum(__local acc_t* scratch, int ns, int t, int r, int rows, int cb_size,
                           bool active) {
  barrier(CLK_LOCAL_MEM_FENCE);
  int span = 1;
  while (span < rows) span <<= 1;
  for (int off = span >> 1; off > 0; off >>= 1) {
    if (active && r < off && r + off < rows)
      for (int k = 0; k < ns; ++k)
        scratch[k * REDUCE_WG + t] += scratch[k * REDUCE_WG + t + off * cb_size];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
