#pragma once
// Geneformer's PyTorch reference (`stagebench peer geneformer`). Its peer computes the layers the
// cell embedding needs, as the graph stages do; its padding is drawn alike, so the fraction
// agrees within 5 points.
#include "contract/peer_script.h"

namespace sb::geneformer {

inline PeerScript peer_script() {
  return {"geneformer_torch.py",
          {},
          {{"batch", "batch"},
           {"length", "tokens"},
           {"layers", "embedding_layer"},
           {"model_layers", "layers"},
           {"padding_fraction", "padding_fraction", 0.05}}};
}

}  // namespace sb::geneformer
