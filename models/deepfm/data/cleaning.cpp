#include "models/deepfm/data/cleaning.h"

#include <algorithm>
#include <stdexcept>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace sb::deepfm {

const char* to_string(Cleaning how) {
  return how == Cleaning::regex ? "regex" : "literal";
}

struct Cleaner::Pcre {
  pcre2_code* code = nullptr;
  pcre2_match_data* match = nullptr;
  ~Pcre() {
    pcre2_match_data_free(match);
    pcre2_code_free(code);
  }
};

Cleaner::Cleaner(Cleaning how) : how_(how) {
  if (how != Cleaning::regex) return;
  pcre_ = std::make_unique<Pcre>();
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(" "), 1, 0, &error, &offset, nullptr);
  if (!pcre_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw std::runtime_error(std::string("deepfm cleaning: PCRE2 compile failed: ") +
                             reinterpret_cast<const char*>(message));
  }
  // Without a JIT (or where it is disabled) PCRE2 interprets; the stage reports which ran.
  jit_ = pcre2_jit_compile(pcre_->code, PCRE2_JIT_COMPLETE) == 0;
  pcre_->match = pcre2_match_data_create_from_pattern(pcre_->code, nullptr);
  if (!pcre_->match) throw std::bad_alloc();
}

Cleaner::~Cleaner() = default;
Cleaner::Cleaner(Cleaner&&) noexcept = default;
Cleaner& Cleaner::operator=(Cleaner&&) noexcept = default;

void Cleaner::clean(std::string& value) {
  if (how_ == Cleaning::literal) {
    std::replace(value.begin(), value.end(), ' ', '_');
    return;
  }
  // "_" for " " keeps the length, so one buffer of the input's size (+1 for the terminator PCRE2
  // writes) always suffices; the overflow flag is a guard, not a path we expect.
  buffer_.resize(value.size() + 1);
  PCRE2_SIZE length = buffer_.size();
  const int rc =
      pcre2_substitute(pcre_->code, reinterpret_cast<PCRE2_SPTR>(value.data()), value.size(), 0,
                       PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, pcre_->match,
                       nullptr, reinterpret_cast<PCRE2_SPTR>("_"), 1,
                       reinterpret_cast<PCRE2_UCHAR*>(buffer_.data()), &length);
  if (rc == PCRE2_ERROR_NOMEMORY) {
    buffer_.resize(length);
    length = buffer_.size();
    const int again = pcre2_substitute(pcre_->code, reinterpret_cast<PCRE2_SPTR>(value.data()),
                                       value.size(), 0, PCRE2_SUBSTITUTE_GLOBAL, pcre_->match,
                                       nullptr, reinterpret_cast<PCRE2_SPTR>("_"), 1,
                                       reinterpret_cast<PCRE2_UCHAR*>(buffer_.data()), &length);
    if (again < 0) throw std::runtime_error("deepfm cleaning: pcre2_substitute failed");
  } else if (rc < 0) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(rc, message, sizeof message);
    throw std::runtime_error(std::string("deepfm cleaning: pcre2_substitute failed: ") +
                             reinterpret_cast<const char*>(message));
  }
  if (rc == 0) return;  // no space: the value is already clean
  value.assign(buffer_.data(), length);
}

void clean_table_in_place(Table& table, Cleaning how) {
  Cleaner cleaner(how);
  for (auto& row : table.rows)
    for (auto& v : row) cleaner.clean(v);
}

Table clean_table(const Table& table, Cleaning how) {
  Table t = table;
  clean_table_in_place(t, how);
  return t;
}

}  // namespace sb::deepfm
