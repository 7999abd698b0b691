#include "models/geneformer/cell_file.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

#include "models/io/npy.h"
#include "models/io/safetensors.h"

namespace sb::geneformer {
namespace {

TensorData read_tensor(const std::filesystem::path& path, const std::string& preferred,
                       bool optional) {
  const std::string ext = path.extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext != ".safetensors")
    throw std::invalid_argument(path.string() + ": expected a .npy or .safetensors file");
  const SafetensorsFile f = SafetensorsFile::open(path);
  if (f.contains(preferred)) return f.read(preferred);
  if (optional) return {};
  const auto names = f.names();
  if (names.size() == 1) return f.read(names.front());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument(path.string() + ": several tensors and none named '" + preferred +
                              "' (" + list + ")");
}

}  // namespace

Cells read_cells(const std::filesystem::path& input, const std::filesystem::path& mask_file,
                 int64_t vocab) {
  const TensorData ids = read_tensor(input, "input_ids", false);
  if (ids.shape.empty() || ids.shape.size() > 2)
    throw std::invalid_argument("input " + input.string() + ": token ids of shape " +
                                shape_to_string(ids.shape) + " are not [B, S] or [S]");
  const int64_t batch = ids.shape.size() == 2 ? ids.shape[0] : 1, tokens = ids.shape.back();
  std::vector<int32_t> v(ids.values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = ids.values[i];
    // Range first: converting inf, NaN or anything beyond int32 to int32 is undefined behaviour
    // (it printed 2^31, int64 max and 1e30 all as -2147483648). Ids beyond the vocabulary but
    // within int32 are cells_from_ids' to name.
    if (!(x >= -2147483648.0f && x < 2147483648.0f) || x != std::floor(x)) {
      std::ostringstream value;
      if (std::fabs(x) < 1e15f && x == std::floor(x))
        value << static_cast<int64_t>(x);  // in range: whole numbers read as written
      else
        value << std::setprecision(9) << x;
      throw std::invalid_argument("input " + input.string() + ": value " + value.str() + " at " +
                                  std::to_string(i) + " is not a token id (the vocabulary is [0, " +
                                  std::to_string(vocab) + "))");
    }
    v[i] = static_cast<int32_t>(x);
  }
  TensorData mask;
  if (!mask_file.empty())
    mask = read_tensor(mask_file, "attention_mask", false);
  else if (input.extension() == ".safetensors")
    mask = read_tensor(input, "attention_mask", true);
  if (!mask.values.empty() && mask.shape != ids.shape &&
      !(mask.shape.size() == 1 && ids.shape.size() == 2 && batch == 1))
    throw std::invalid_argument("attention mask of shape " + shape_to_string(mask.shape) +
                                " does not match the token ids' " + shape_to_string(ids.shape));
  return cells_from_ids(std::move(v), mask.values, batch, tokens, vocab);
}

}  // namespace sb::geneformer
