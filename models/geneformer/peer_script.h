#pragma once
// Geneformer's PyTorch reference (`stagebench peer geneformer`). Its peer computes the layers the
// cell embedding needs, as the graph stages do, on cells of the run's lengths (synthetic_length,
// the default seed), so the padding fractions are equal; a run with another seed or its own cells
// has other lengths and its peer is refused.
#include "contract/peer_script.h"

namespace sb::geneformer {

inline PeerScript peer_script() {
  return {"geneformer_torch.py",
          {},
          {{"batch", "batch"},
           {"length", "tokens"},
           {"layers", "embedding_layer"},
           {"model_layers", "layers"},
           {"padding_fraction", "padding_fraction", 0}}};
}

}  // namespace sb::geneformer
