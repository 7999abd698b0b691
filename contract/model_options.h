#pragma once
// Options a model takes beyond the ones every model has (size, seed, weights, batch): declared by
// the model where it registers (models/<name>/entry.cpp), read by the CLI and sweep files by
// their declaration, and handed to the model as a typed map it parses itself. The harness knows
// their types and where a run records them, never which model owns them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

enum class OptionType {
  integer,        // an int64 >= 1
  number,         // a finite double > 0
  existing_file,  // a path to a file that exists
};

// Where an option may be given.
struct OptionScope {
  bool run = true;     // `run --NAME`
  bool sweep = true;   // a sweep entry's "NAME"
  bool infer = false;  // `infer --NAME`
};

struct OptionSpec {
  std::string name;  // --NAME on the command line, "NAME" in a sweep entry and in OptionValues
  std::string help;  // the CLI puts "<model>: " in front
  OptionType type = OptionType::integer;
  OptionScope scope{};
  // The key of the run's params that records the value, for matching a journal's run with its
  // job (harness/journal_match.h); empty: not recorded.
  std::string param = {};
  bool float32 = false;  // the model keeps it as a float: compared at that precision
};

// Option values by name: int64 for integers, double for numbers, string for files. Only the
// options given are present.
using OptionValues = std::map<std::string, nlohmann::json>;

inline int64_t option_integer(const OptionValues& o, const std::string& name, int64_t fallback) {
  const auto it = o.find(name);
  return it == o.end() ? fallback : it->second.get<int64_t>();
}

inline std::optional<double> option_number(const OptionValues& o, const std::string& name) {
  const auto it = o.find(name);
  if (it == o.end()) return std::nullopt;
  return it->second.get<double>();
}

inline std::string option_text(const OptionValues& o, const std::string& name) {
  const auto it = o.find(name);
  return it == o.end() ? std::string() : it->second.get<std::string>();
}

}  // namespace sb
