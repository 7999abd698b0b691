#pragma once
// Tokenized cells as Geneformer sees them: rank-value encoded gene ids (most expressed first),
// padded with id 0 to the batch's length, and the two masks the model derives from padding.
#include <cstdint>
#include <string>
#include <vector>

#include "models/geneformer/config.h"
#include "models/ops/backend.h"

namespace sb::geneformer {

struct Cells {
  int64_t batch = 0, tokens = 0;
  std::vector<int32_t> ids;  // [batch, tokens], 0 = padding
  std::vector<float> mask;   // [batch, tokens], 1 = gene token, 0 = padding

  int64_t length(int64_t cell) const;  // gene tokens in a cell
};

inline constexpr int32_t kPadId = 0;

// Seeded synthetic cells: distinct gene ids from [2, vocab) (0 pad, 1 mask), each cell's length
// synthetic_length's: realistic padding.
Cells synthetic_cells(const Config& c, int64_t batch, uint64_t seed);

// A synthetic cell's gene tokens: all of `tokens` for cell 0, else between half and all of them,
// along a golden-ratio (Weyl) sequence over cell + seed, so that the lengths spread evenly and a
// batch's padding stays near its expected quarter at any batch size.
// scripts/reference/synthetic_cells.py computes the same. PyTorch's peer pads exactly as the run does: our attention skips each cell's
// padded keys and PyTorch's does not, so a peer drawing its own lengths did other work.
int64_t synthetic_length(int64_t tokens, uint64_t seed, int64_t cell);

// From ids (and an optional mask; without one, ids == 0 are padding). Throws naming the first
// id outside [0, vocab) or a mask that is not 0/1 or does not match the ids' shape.
Cells cells_from_ids(std::vector<int32_t> ids, std::vector<float> mask, int64_t batch,
                     int64_t tokens, int64_t vocab);

// The cell `cell` of `c` with its gene token at `position` deleted (the rest move up, a pad
// fills the end): Geneformer's in-silico deletion.
Cells delete_gene(const Cells& c, int64_t cell, int64_t position);

// One cell of a batch, as a batch of its own.
Cells select(const Cells& c, int64_t cell);

// Several cells stacked into one batch (same token count).
Cells stack(const std::vector<Cells>& parts);

// The batch on a backend: ids, the additive key mask and the mean-pool weights.
struct DeviceCells {
  Tensor ids;       // [B, S] i32
  Tensor key_bias;  // [B, S]: 0 for genes, kMaskedLogit for padding
  Tensor weights;   // [B, S]: 1 for genes, 0 for padding
};
DeviceCells upload(Backend& be, const Cells& c);

}  // namespace sb::geneformer
