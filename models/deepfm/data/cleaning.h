#pragma once
// Cleaning: every value's ' ' becomes '_', as the original Python preprocessing does. Two ways,
// for the "literal-strings" stage: a regex replacement with PCRE2 (JIT-compiled where the library
// has a JIT: pattern " ", replacement "_", PCRE2_SUBSTITUTE_GLOBAL) and a literal replacement
// (std::replace). Both give the same text, hence the same encoding.
#include <memory>
#include <string>
#include <string_view>

#include "models/deepfm/data/table.h"

namespace sb::deepfm {

enum class Cleaning { regex, literal };
const char* to_string(Cleaning);

// Holds the compiled pattern and match data, so that a table is cleaned with one compilation, as
// a well-kept regex user would. Not thread-safe (one Cleaner per thread).
class Cleaner {
 public:
  explicit Cleaner(Cleaning how);  // throws std::runtime_error if PCRE2 refuses the pattern
  ~Cleaner();
  Cleaner(Cleaner&&) noexcept;
  Cleaner& operator=(Cleaner&&) noexcept;

  void clean(std::string& value);
  std::string cleaned(std::string_view value) {
    std::string s(value);
    clean(s);
    return s;
  }
  Cleaning how() const { return how_; }
  // Whether the regex runs JIT-compiled (false for literal cleaning and where PCRE2 has no JIT).
  bool jit() const { return jit_; }

 private:
  struct Pcre;
  Cleaning how_;
  bool jit_ = false;
  std::unique_ptr<Pcre> pcre_;
  std::string buffer_;
};

// The preprocessing phase the stage times on its own: a cleaned copy of every value.
Table clean_table(const Table& table, Cleaning how);
// In place, for timing without the copy.
void clean_table_in_place(Table& table, Cleaning how);

}  // namespace sb::deepfm
