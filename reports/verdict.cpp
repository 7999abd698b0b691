#include "reports/verdict.h"

namespace sb {

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::slower_suspected:
      return "SLOWER?";
    case Verdict::faster_suspected:
      return "FASTER?";
    case Verdict::ambiguous:
      break;
  }
  return "AMBIGUOUS";
}

}  // namespace sb
