#pragma once
// Enformer's PyTorch reference (`stagebench peer enformer`): the script, and the work it must
// match, its `work` keys against the run's params.
#include "contract/peer_script.h"

namespace sb::enformer {

inline PeerScript peer_script() {
  return {"enformer_torch.py",
          {},
          {{"batch", "batch"},
           {"length", "input_bp"},
           {"layers", "depth"},
           {"tokens", "tokens"},
           {"target", "target"}}};
}

}  // namespace sb::enformer
