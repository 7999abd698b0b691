#include "harness/cli/model_flags.h"

#include <algorithm>

#include "harness/cli/option_checks.h"

namespace sb::cli {
namespace {

std::string names_or_joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

ModelOptionFlags::ModelOptionFlags(CLI::App& cmd, bool OptionScope::*scope) {
  // One flag per name; its help says which model takes it, for each model that does.
  std::map<std::string, std::string> help;
  for (const ModelEntry& m : model_registry())
    for (const OptionSpec& o : m.options)
      if (o.scope.*scope) {
        std::string& h = help[o.name];
        h += (h.empty() ? "" : "; ") + m.name + ": " + o.help;
      }
  for (const OptionSpec& o : declared_options()) {
    if (!help.count(o.name)) continue;
    const std::string flag = "--" + o.name;
    CLI::Option* opt = nullptr;
    switch (o.type) {
      case OptionType::integer:
        opt = cmd.add_option(flag, integers_[o.name], help[o.name])
                  ->check(kNonNegativeInteger)
                  ->check(CLI::PositiveNumber);
        break;
      case OptionType::number:
        opt = cmd.add_option(flag, numbers_[o.name], help[o.name])
                  ->check(kFiniteNumber)
                  ->check(CLI::PositiveNumber);
        break;
      case OptionType::existing_file:
        opt = cmd.add_option(flag, texts_[o.name], help[o.name])->check(CLI::ExistingFile);
        break;
    }
    flags_.emplace_back(o.name, opt);
  }
}

OptionValues ModelOptionFlags::given() const {
  OptionValues out;
  for (const auto& [name, flag] : flags_) {
    if (flag->count() == 0) continue;
    if (const auto i = integers_.find(name); i != integers_.end()) out[name] = i->second;
    if (const auto n = numbers_.find(name); n != numbers_.end()) out[name] = n->second;
    if (const auto t = texts_.find(name); t != texts_.end()) out[name] = t->second;
  }
  return out;
}

std::string size_help() {
  std::vector<std::string> named;
  std::string beyond;
  for (const ModelEntry& m : model_registry()) {
    for (const std::string& s : m.sizes)
      if (std::find(named.begin(), named.end(), s) == named.end()) named.push_back(s);
    if (m.other_sizes.accepts)
      beyond += (beyond.empty() ? "" : "; ") + m.name + ": also " + m.other_sizes.form;
  }
  return names_or_joined(named) + (beyond.empty() ? "" : " (" + beyond + ")");
}

std::string per_model_help(std::string ModelEntry::*text,
                           const std::function<bool(const ModelEntry&)>& only) {
  std::string out;
  for (const ModelEntry& m : model_registry())
    if (!(m.*text).empty() && (!only || only(m)))
      out += (out.empty() ? "" : "; ") + m.name + ": " + m.*text;
  return out;
}

std::string model_names(const std::function<bool(const ModelEntry&)>& only) {
  std::vector<std::string> names;
  for (const ModelEntry& m : model_registry())
    if (only(m)) names.push_back(m.name);
  return names_or_joined(names);
}

}  // namespace sb::cli
