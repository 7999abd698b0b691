#pragma once
// `stagebench run --repeat K`: the ladder run K times, each in a fresh process of this binary
// (one after the other, each interleaving the stages in rounds), merged into one run record per
// backend by merge_repeats (harness/repeat_merge.h), so that the interval holds the variation
// between processes as well as within one.
#include <string>
#include <vector>

namespace sb::cli {

// The arguments of one repeat's process: this invocation's argv without argv[0], --repeat, the
// output and the format, then "-o output --format json". Throws std::invalid_argument on an
// option that lacks its value.
std::vector<std::string> repeat_child_args(const std::vector<std::string>& argv,
                                           const std::string& output);

struct RepeatPlan {
  int processes = 1;
  std::string output;           // the merged document
  std::string format = "json";  // of the merged document: json or gbench
  bool quiet = false;
};

// Runs the processes and writes the merged document after each one (with "complete": false
// until the last). Returns the exit status: 0, 1 when a stage failed, 2 when a process refused
// its input, 130 when stopped; the processes' files stay beside the output when the merge
// cannot be made, and go otherwise.
int run_repeated(const RepeatPlan& plan);

}  // namespace sb::cli
