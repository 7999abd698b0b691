#pragma once
// Enformer's configuration (docs/models.md): the named sizes (tiny for tests, small for the CPU,
// full as published), or a user's own checkpoint's, read from its shapes (checkpoint.h).
#include <cstdint>
#include <string>
#include <vector>

namespace sb::enformer {

struct Config {
  std::string size;
  int64_t dim = 0;
  int64_t depth = 0;
  int64_t heads = 0;
  int64_t dk = 0;   // key size per head
  int64_t div = 0;  // filters are rounded to a multiple of this
  // A checkpoint's filters as stored (stem, then one per tower block); empty: from dim and div.
  std::vector<int64_t> filter_list;
  int64_t input_bp = 0;
  int64_t target = 0;  // centre tokens kept after the transformer
  int64_t human_out = 0;
  int64_t mouse_out = 0;
  int64_t batch = 1;
  // Where the configuration and the crop came from, for the run's params and messages.
  std::string source;
  std::string target_from = "the size's";

  int64_t tower_blocks() const { return static_cast<int64_t>(filters().size()) - 1; }
  // Each of the stem's and the tower's attention pools halves the length.
  int64_t pool_factor() const { return int64_t{1} << (tower_blocks() + 1); }
  int64_t tokens() const { return input_bp / pool_factor(); }
  int64_t dv() const { return dim / heads; }
  int64_t rel_features() const { return dim / heads; }
  // Channels after the stem and after each tower block (7 entries for the named sizes).
  std::vector<int64_t> filters() const;
};

Config config_for(const std::string& size);  // throws on an unknown size
const std::vector<std::string>& sizes();

}  // namespace sb::enformer
