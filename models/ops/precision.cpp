#include "models/ops/backend.h"

namespace sb {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::f32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
    case Precision::f16:
      return "fp16";
    case Precision::int8:
      return "int8";
  }
  return "?";
}

}  // namespace sb
