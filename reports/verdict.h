#pragma once
// The verdict of comparing one metric of one stage between two runs. For every metric FASTER
// means better and SLOWER worse: less time, more speedup or throughput, less memory, higher
// cosine. The suspected verdicts are a large effect on too few samples to test (docs/compare.md):
// every candidate sample beyond every base sample, or a change many times a rule's threshold.
namespace sb {

enum class Verdict { same, faster, slower, ambiguous, slower_suspected, faster_suspected };

// "SAME", "FASTER", "SLOWER", "AMBIGUOUS", "SLOWER?", "FASTER?".
const char* verdict_name(Verdict verdict);

}  // namespace sb
