"""Geneformer's synthetic cell lengths as stagebench draws them (models/geneformer/cells.h,
synthetic_length): cell 0 full, the others between half and all of the tokens along a
golden-ratio (Weyl) sequence over cell + seed. The peer pads exactly as the run does, so both do
the same work (our attention skips each cell's padded keys). Without PyTorch, so that its test
runs anywhere."""

MASK64 = (1 << 64) - 1

# stagebench's default seed (RunOptions::seed 1) plus one, as its workload passes it
DEFAULT_SEED = 2


def synthetic_length(tokens, seed, cell):
    if cell == 0:
        return tokens
    weyl = ((cell + seed) * 0x9E3779B97F4A7C15) & MASK64  # (cell + seed) * 2^64 / golden ratio
    shortest = tokens // 2
    return shortest + ((weyl * (tokens - shortest + 1)) >> 64)
