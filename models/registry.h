#pragma once
// The models the CLI knows, each declared in its own folder (models/model_entry.h) and listed
// once in registry.cpp, and the backends.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/model_entry.h"
#include "models/ops/backend.h"
#include "models/ops/opencl/opencl_backend.h"  // tune_library's types (no OpenCL in it)

namespace sb {

// The registered models in registration order. A deque: an entry found stays where it is when
// another is registered.
const std::deque<ModelEntry>& model_registry();
// Adds a model beyond the built-in ones (a test's own); its check and make refuse other models'
// options, as the built-in ones do. Throws std::invalid_argument when the name is taken or an
// option is declared with another type than a model before it declared that name.
void register_model(ModelEntry entry);
// Every option the models declare, each name once (the first declaration), in name order.
std::vector<OptionSpec> declared_options();
// "<model>: a and b apply to <owner> only<note>" for the first option in `given` that `m` does
// not declare and another model does, "" when `m` takes them all. An option no model declares
// is named as unknown.
std::string foreign_option(const ModelEntry& m, const OptionValues& given);
const ModelEntry& find_model(const std::string& name);  // throws, listing the known models
// Throws std::invalid_argument "<model>: unknown size 'x' (sizes: ...)".
void check_size(const ModelEntry& m, const std::string& size);
// Stage ids (or ladder indices) -> ladder positions, all of them when `ids` is empty. Throws
// std::invalid_argument "<model>: unknown stage 'x' (stages: ...)".
std::vector<size_t> resolve_stages(const ModelEntry& m, const std::vector<std::string>& ids);
std::vector<std::string> backend_names();  // "cpu", and "opencl" when built
std::unique_ptr<Backend> make_backend(const std::string& name, const std::string& device);
// `stagebench tune`: the OpenCL backend's CLBlast tuned on one device (opencl_backend.h).
LibraryTuneReport tune_library(const LibraryTuneOptions& options);

}  // namespace sb
