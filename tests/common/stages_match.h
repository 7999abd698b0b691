#pragma once
// Every stage of an inference workload that applies, run and checked against one stage's output
// with the later stage's own tolerance: the ladder tests' core, for models of any configuration.
// The training form does the same with the stages' training traces.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "contract/workload.h"
#include "harness/correctness.h"

namespace sb::testing {

// Runs `baseline`, then every later stage without a skip reason (released after its check).
// Returns how many stages were checked besides the baseline.
inline int expect_stages_match_baseline(Workload& w, size_t baseline, const std::string& label) {
  w.prepare(baseline);
  w.run(baseline);
  const std::vector<float> reference = w.output(baseline);
  EXPECT_FALSE(reference.empty()) << label << ": the baseline wrote nothing";
  int checked = 0;
  for (size_t s = baseline + 1; s < w.stages().size(); ++s) {
    if (!w.skip_reason(s).empty()) continue;
    w.prepare(s);
    w.run(s);
    const auto r = compare(w.output(s), reference, w.stages()[s].tolerance);
    EXPECT_TRUE(r.pass) << label << " " << w.stages()[s].id << ": cosine " << r.cosine << " "
                        << r.reason;
    w.release(s);
    ++checked;
  }
  return checked;
}

// Runs `baseline` and takes its training trace, then every later training stage before `end`
// without a skip reason, each trace held to the baseline's with the stage's own tolerance.
// Returns how many stages were checked besides the baseline.
inline int expect_training_stages_match_baseline(Workload& w, size_t baseline, size_t end,
                                                 const std::string& label) {
  w.prepare(baseline);
  w.run(baseline);
  const std::optional<TrainTrace> reference = w.train_trace(baseline);
  if (!reference) {
    ADD_FAILURE() << label << ": the baseline has no training trace";
    return 0;
  }
  EXPECT_FALSE(reference->loss.empty()) << label;
  int checked = 0;
  for (size_t s = baseline + 1; s < end; ++s) {
    if (!w.skip_reason(s).empty()) continue;
    w.prepare(s);
    w.run(s);
    const std::optional<TrainTrace> trace = w.train_trace(s);
    if (!trace) {
      ADD_FAILURE() << label << " " << w.stages()[s].id << ": no training trace";
      continue;
    }
    const auto r = compare_training(*trace, *reference, w.stages()[s].tolerance);
    EXPECT_TRUE(r.pass) << label << " " << w.stages()[s].id << ": " << r.reason;
    w.release(s);
    ++checked;
  }
  return checked;
}

}  // namespace sb::testing
