#pragma once
// How a model's PyTorch reference script is called and what work it must match (`stagebench
// peer`, docs/method.md). A model declares its script where it registers (models/<name>/entry.cpp);
// the harness (harness/peer.h) runs it knowing no model by name.
#include <string>
#include <vector>

namespace sb {

// One figure of equal work: the key in the script's `work` and the run's `params` key that
// must agree with it, within `tolerance` (absolute; 0: equal).
struct WorkKey {
  std::string work, param;
  double tolerance = 0;
};

struct PeerScript {
  std::string file;                  // under scripts/reference/
  std::vector<std::string> leading;  // arguments before the common ones (a subcommand)
  std::vector<WorkKey> work;         // what must agree for the peer to do the stage's work
};

}  // namespace sb
