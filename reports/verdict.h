#pragma once
// The verdict of comparing one metric of one stage between two runs. For every metric FASTER
// means better and SLOWER worse: less time, more speedup or throughput, less memory, higher
// cosine.
namespace sb {

enum class Verdict { same, faster, slower, ambiguous };

// "SAME", "FASTER", "SLOWER", "AMBIGUOUS".
const char* verdict_name(Verdict verdict);

}  // namespace sb
