#pragma once
// Enformer's sizes (docs/models.md): tiny for tests, small for the CPU, full as published.
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
  int64_t input_bp = 0;
  int64_t target = 0;  // centre tokens kept after the transformer
  int64_t human_out = 0;
  int64_t mouse_out = 0;
  int64_t batch = 1;

  int64_t tokens() const { return input_bp >> 7; }  // 7 halvings: stem + 6 tower pools
  int64_t dv() const { return dim / heads; }
  int64_t rel_features() const { return dim / heads; }
  // Channels after the stem and after each of the 6 tower blocks (7 entries).
  std::vector<int64_t> filters() const;
};

Config config_for(const std::string& size);  // throws on an unknown size
const std::vector<std::string>& sizes();

}  // namespace sb::enformer
