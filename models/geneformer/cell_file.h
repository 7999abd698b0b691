#pragma once
// Cells from a file of token ids: .npy or .safetensors ("input_ids", and "attention_mask" when
// the same file holds one), [B, S] or [S]; the mask from its own file when given, else ids != 0.
#include <cstdint>
#include <filesystem>

#include "models/geneformer/cells.h"

namespace sb::geneformer {

// Throws std::invalid_argument naming the file and the problem (shape, a non-integer id, an id
// outside [0, vocab), a mask that is not 0/1 or does not match).
Cells read_cells(const std::filesystem::path& input, const std::filesystem::path& mask_file,
                 int64_t vocab);

}  // namespace sb::geneformer
