#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/io/stored_type.h"
#include "models/io/tensor_data.h"

// The .safetensors format: 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}}, then the data
// buffer the offsets index into.
namespace sb {

class MappedFile;

struct SafetensorsEntry {
  std::string dtype;  // "F32", "F16", "BF16", ...
  StoredType type = StoredType::f32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data buffer that follows the header
  uint64_t end = 0;
};

// A validated, memory-mapped safetensors file. Opening checks the whole header (every entry's
// dtype, shape, offsets in range, sizes matching shape x dtype, no overlaps) and throws
// std::invalid_argument (bad input) naming the file and the tensor; reading converts one tensor on
// demand.
class SafetensorsFile {
 public:
  static constexpr uint64_t kMaxHeaderBytes = 100u * 1000u * 1000u;

  static SafetensorsFile open(const std::filesystem::path& path);
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::filesystem::path& path() const { return path_; }
  // Tensor names in the order their data lies in the file.
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  // Throws std::out_of_range naming the file and the tensor when it is absent.
  const SafetensorsEntry& info(const std::string& name) const;
  // The tensor converted to fp32 (one copy; the stored bytes stay in the page cache).
  TensorData read(const std::string& name) const;
  // The stored bytes, little-endian, not necessarily aligned.
  std::span<const std::byte> raw(const std::string& name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  SafetensorsFile() = default;

  std::filesystem::path path_;
  std::unique_ptr<MappedFile> file_;
  std::span<const std::byte> data_;  // the buffer after the header
  std::map<std::string, SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// Writes `tensors` in the given order, every one stored as `dtype` ("F32", "F16" or "BF16").
// The file appears atomically (written to a temporary beside it, then renamed). Throws
// std::invalid_argument on a bad dtype, duplicate or empty name, a "__metadata__" tensor name,
// or values that do not match the shape; std::runtime_error on I/O failure.
void write_safetensors(const std::filesystem::path& path,
                       const std::vector<std::pair<std::string, TensorData>>& tensors,
                       const std::string& dtype = "F32",
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace sb
