#pragma once
// One run record from K processes that ran the same ladder (`stagebench run --repeat K`,
// docs/method.md#repeats). One process's interval says how much its rounds vary, not how much
// a second process would differ: two back-to-back processes of one binary can give disjoint
// intervals (a different heap layout, kernel placement, clock state). The merged record's
// interval therefore holds both kinds of variation:
//  - time: summaries over the pooled samples of every process;
//  - speedup: the median of the pooled paired ratios (each process's rounds paired within that
//    process), its distribution-free 95% interval over the pooled ratios, widened to hold every
//    process's own median ratio; ci95_coverage is the pooled interval's;
//  - status: the worst over the processes (failed, then invalid, then ok), each reason prefixed
//    with its process; a stage skipped in some processes and measured in others is invalid;
//  - correctness: the worst process's (a failed check, else the lowest cosine);
//  - memory: the largest peak; throughput: rescaled to the pooled median;
//  - per stage, section "repeat": each process's median time and speedup, so a reader sees the
//    spread; per run, section "repeat": the number of processes.
// Every process must have kept its samples (RunnerOptions::keep_samples) and run the same
// model, size, backend and stages; otherwise std::invalid_argument names the difference.
#include <vector>

#include "schema/records.h"

namespace sb {

RunRecord merge_repeats(const std::vector<RunRecord>& processes);

}  // namespace sb
