#pragma once
// One line saying what produced a result: the commit and whether the build was dirty, the
// compiler and build type, and the environment variables that can switch a timed path
// (context.build, context.environment). Reports print it above their tables so that a figure
// is never read apart from the build and knobs that made it.
#include <string>

#include "schema/context_record.h"

namespace sb {

// "built from 1a2b3c4d5e6f (clean), gcc 12.2.0, Release; environment: OMP_NUM_THREADS=1".
// Fields the document lacks (results older than the stamp) are said to be unrecorded.
std::string provenance_text(const ContextRecord& context);

}  // namespace sb
