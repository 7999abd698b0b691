#pragma once
// DynUNet's PyTorch reference (`stagebench peer dynunet`): a training script, whose subcommand
// `peer` times the variants.
#include "contract/peer_script.h"

namespace sb::dynunet {

inline PeerScript peer_script() {
  return {"dynunet_torch.py",
          {"peer"},
          {{"batch", "batch"}, {"length", "patch"}, {"filters", "filters"}}};
}

}  // namespace sb::dynunet
