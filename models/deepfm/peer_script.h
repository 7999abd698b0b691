#pragma once
// DeepFM's PyTorch reference (`stagebench peer deepfm`): a training script, whose subcommand
// `peer` times the variants.
#include "contract/peer_script.h"

namespace sb::deepfm {

inline PeerScript peer_script() {
  return {"deepfm_torch.py",
          {"peer"},
          {{"batch", "batch"},
           {"embed", "embed"},
           {"hidden", "hidden"},
           {"heads", "heads"},
           {"layers", "deep_layers"}}};
}

}  // namespace sb::deepfm
