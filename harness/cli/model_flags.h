#pragma once
// The command-line side of the models' declarations (models/model_entry.h): each option a model
// declares becomes a flag of the commands its scope names, and the help of the shared flags
// (--size, --weights, --input) is put together from what each model says of them. Nothing here
// names a model.
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/registry.h"

namespace sb::cli {

// The flags of every declared option of one scope (OptionScope::run, ::infer), typed and checked
// as declared. Bound by reference: keep it alive, and in place, as long as the command.
class ModelOptionFlags {
 public:
  ModelOptionFlags(CLI::App& cmd, bool OptionScope::*scope);
  ModelOptionFlags(const ModelOptionFlags&) = delete;
  ModelOptionFlags& operator=(const ModelOptionFlags&) = delete;
  // The options given on the command line, typed as declared.
  OptionValues given() const;

 private:
  std::map<std::string, int64_t> integers_;
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> texts_;
  std::vector<std::pair<std::string, CLI::Option*>> flags_;
};

// "tiny, small or full (m: also MxNxK)": the models' named sizes, and the forms beyond them.
std::string size_help();
// "<m>: <text>; <n>: <text>" over the models for which `text` (a field of the entry) is not
// empty; `only` filters them.
std::string per_model_help(std::string ModelEntry::*text,
                           const std::function<bool(const ModelEntry&)>& only = {});
// "a, b or c": the models that `only` keeps.
std::string model_names(const std::function<bool(const ModelEntry&)>& only);

}  // namespace sb::cli
