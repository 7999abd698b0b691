#pragma once
// A model declared from the test folder alone, as a new model's folder would declare it
// (models/model_entry.h): one stage, one option of its own (--scale), registered with
// register_model and never named by the CLI.
#include "models/model_entry.h"

namespace sb::testing {

ModelEntry plugin_model_entry();

}  // namespace sb::testing
