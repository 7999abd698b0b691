#pragma once

#include <filesystem>
#include <string>

#include "models/io/tensor_data.h"

// NumPy .npy files (format versions 1.0, 2.0, 3.0), C order, little-endian element types:
// '<f4' '<f2' '<f8' '<i8' '<i4' '<i2' '|i1' '<u8' '<u4' '<u2' '|u1' '|b1'.
namespace sb {

// Reads the array as fp32 values; TensorData::dtype gets the safetensors spelling of the stored
// type ("F32", "I64", "BOOL", ...). Throws std::invalid_argument (bad input) naming the file and
// the problem: bad magic, unsupported version or dtype, fortran_order True, malformed header,
// truncated data.
TensorData read_npy(const std::filesystem::path& path);

// Writes `tensor` with the NumPy element type `descr` (any of the above; '<f4' by default),
// atomically. Integer types need integral values in range. Throws std::invalid_argument on a bad
// descr or values that do not match the shape, std::runtime_error on I/O failure.
void write_npy(const std::filesystem::path& path, const TensorData& tensor,
               const std::string& descr = "<f4");

}  // namespace sb
