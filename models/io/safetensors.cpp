#include "models/io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "models/io/mapped_file.h"
#include "schema/atomic_file.h"
#include "schema/json_text.h"

namespace sb {
namespace {

using nlohmann::json;

constexpr const char* kMetadataKey = "__metadata__";
// A real header nests three levels (root, entry, shape); the limit only stops hostile input
// from building pathological documents.
constexpr int kMaxHeaderDepth = 32;
// Tensors are converted and written in pieces so writing never holds a second full copy.
constexpr size_t kWriteChunkElements = size_t{1} << 20;

std::invalid_argument safetensors_error(const std::filesystem::path& path,
                                        const std::string& what) {
  return std::invalid_argument("safetensors file '" + path.string() + "': " + what);
}

std::invalid_argument tensor_error(const std::filesystem::path& path, const std::string& name,
                                   const std::string& what) {
  return safetensors_error(path, "tensor '" + name + "': " + what);
}

uint64_t read_le_u64(const std::byte* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | std::to_integer<uint64_t>(bytes[i]);
  return value;
}

std::string offsets_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// The header is parsed once into a tree that open() then walks, by the one parser of users' JSON
// (schema/json_text): nesting bounded by a linear pre-scan, and a tensor named twice refused
// rather than read as its last entry. (nlohmann's callback parser scans the parent object after
// every entry, which made 200k entries take minutes: it is not used.)
json parse_header(const std::filesystem::path& path, std::string_view text) {
  return parse_json_text(text, "safetensors file '" + path.string() + "': header", kMaxHeaderDepth);
}

std::map<std::string, std::string> parse_metadata(const std::filesystem::path& path,
                                                  const json& value) {
  if (!value.is_object()) throw safetensors_error(path, "\"__metadata__\" is not a JSON object");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, item] : value.items()) {
    // The format says str -> str; other writers' numbers or objects are kept as their JSON text.
    metadata[key] = item.is_string() ? item.get<std::string>() : item.dump();
  }
  return metadata;
}

const json& required_field(const std::filesystem::path& path, const std::string& name,
                           const json& entry, const char* field) {
  const auto it = entry.find(field);
  if (it == entry.end()) throw tensor_error(path, name, std::string("missing \"") + field + "\"");
  return *it;
}

SafetensorsEntry parse_entry(const std::filesystem::path& path, const std::string& name,
                             const json& entry, uint64_t data_size) {
  if (!entry.is_object()) throw tensor_error(path, name, "header entry is not a JSON object");
  SafetensorsEntry parsed;

  const json& dtype = required_field(path, name, entry, "dtype");
  if (!dtype.is_string()) throw tensor_error(path, name, "\"dtype\" is not a string");
  parsed.dtype = dtype.get<std::string>();
  const auto type = stored_type_from_name(parsed.dtype);
  if (!type) throw tensor_error(path, name, "unknown dtype '" + parsed.dtype + "'");
  parsed.type = *type;

  const json& shape = required_field(path, name, entry, "shape");
  if (!shape.is_array()) throw tensor_error(path, name, "\"shape\" is not an array");
  if (shape.size() > kMaxDimensions) {
    throw tensor_error(path, name,
                       "\"shape\" has " + std::to_string(shape.size()) + " dimensions, more than " +
                           std::to_string(kMaxDimensions));
  }
  for (const json& dim : shape) {
    if (!dim.is_number_integer()) {
      throw tensor_error(path, name, "\"shape\" holds a non-integer: " + dim.dump());
    }
    if (dim.is_number_unsigned()) {
      const auto value = dim.get<uint64_t>();
      if (value > static_cast<uint64_t>(INT64_MAX)) {
        throw tensor_error(path, name, "dimension " + dim.dump() + " is too large");
      }
      parsed.shape.push_back(static_cast<int64_t>(value));
    } else {
      const auto value = dim.get<int64_t>();
      if (value < 0) {
        throw tensor_error(path, name, "negative dimension in shape " + shape.dump());
      }
      parsed.shape.push_back(value);
    }
  }

  const json& offsets = required_field(path, name, entry, "data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    throw tensor_error(path, name,
                       "\"data_offsets\" must be two non-negative integers, got " + offsets.dump());
  }
  parsed.begin = offsets[0].get<uint64_t>();
  parsed.end = offsets[1].get<uint64_t>();
  if (parsed.begin > parsed.end || parsed.end > data_size) {
    throw tensor_error(path, name,
                       "data_offsets " + offsets_text(parsed.begin, parsed.end) +
                           " out of range: the data buffer has " + std::to_string(data_size) +
                           " bytes");
  }

  int64_t count = 0;
  try {
    count = element_count(parsed.shape);
  } catch (const std::invalid_argument& e) {
    throw tensor_error(path, name, e.what());
  }
  uint64_t needed = 0;
  const bool overflow =
      __builtin_mul_overflow(static_cast<uint64_t>(count), stored_type_size(parsed.type), &needed);
  if (overflow || needed != parsed.end - parsed.begin) {
    throw tensor_error(path, name,
                       "data_offsets " + offsets_text(parsed.begin, parsed.end) + " span " +
                           std::to_string(parsed.end - parsed.begin) + " bytes but shape " +
                           shape_to_string(parsed.shape) + " of " + parsed.dtype + " needs " +
                           (overflow ? std::string("more than 2^64") : std::to_string(needed)));
  }
  return parsed;
}

void check_no_overlap(const std::filesystem::path& path,
                      const std::map<std::string, SafetensorsEntry>& entries) {
  std::vector<const std::pair<const std::string, SafetensorsEntry>*> sorted;
  for (const auto& item : entries) {
    if (item.second.end > item.second.begin) sorted.push_back(&item);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->second.begin < b->second.begin; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const auto& previous = *sorted[i - 1];
    const auto& current = *sorted[i];
    if (current.second.begin < previous.second.end) {
      throw safetensors_error(path, "tensors '" + previous.first + "' " +
                                        offsets_text(previous.second.begin, previous.second.end) +
                                        " and '" + current.first + "' " +
                                        offsets_text(current.second.begin, current.second.end) +
                                        " overlap");
    }
  }
}

void write_le_u64(std::ostream& out, uint64_t value) {
  char bytes[8];
  for (char& byte : bytes) {
    byte = static_cast<char>(value & 0xffu);
    value >>= 8;
  }
  out.write(bytes, sizeof bytes);
}

void write_values(std::ostream& out, StoredType type, const std::vector<float>& values) {
  std::vector<std::byte> chunk;
  for (size_t start = 0; start < values.size(); start += kWriteChunkElements) {
    const size_t count = std::min(kWriteChunkElements, values.size() - start);
    chunk.resize(count * stored_type_size(type));
    encode_from_f32(type, std::span(values).subspan(start, count), chunk);
    out.write(reinterpret_cast<const char*>(chunk.data()),
              static_cast<std::streamsize>(chunk.size()));
  }
}

}  // namespace

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
  SafetensorsFile file;
  file.path_ = path;
  file.file_ = std::make_unique<MappedFile>(path);
  const std::span<const std::byte> bytes = file.file_->bytes();
  if (bytes.size() < 8) {
    throw safetensors_error(path, "file is " + std::to_string(bytes.size()) +
                                      " bytes, shorter than the 8-byte header length (truncated?)");
  }
  const uint64_t header_size = read_le_u64(bytes.data());
  if (header_size > kMaxHeaderBytes) {
    throw safetensors_error(path, "header length " + std::to_string(header_size) +
                                      " exceeds the 100 MB limit (not a safetensors file?)");
  }
  if (header_size > bytes.size() - 8) {
    throw safetensors_error(
        path, "header length " + std::to_string(header_size) + " is larger than the file (" +
                  std::to_string(bytes.size() - 8) + " bytes after the length; truncated?)");
  }
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data() + 8), header_size);
  file.data_ = bytes.subspan(8 + header_size);

  const json header = parse_header(path, header_text);
  if (!header.is_object()) throw safetensors_error(path, "header is not a JSON object");
  for (const auto& [name, entry] : header.items()) {
    if (name == kMetadataKey) {
      file.metadata_ = parse_metadata(path, entry);
    } else {
      file.entries_.emplace(name, parse_entry(path, name, entry, file.data_.size()));
    }
  }
  check_no_overlap(path, file.entries_);
  return file;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  result.reserve(entries_.size());
  for (const auto& item : entries_) result.push_back(item.first);
  std::stable_sort(result.begin(), result.end(), [this](const auto& a, const auto& b) {
    return entries_.at(a).begin < entries_.at(b).begin;
  });
  return result;
}

const SafetensorsEntry& SafetensorsFile::info(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) {
    throw std::out_of_range("safetensors file '" + path_.string() + "': no tensor '" + name + "'");
  }
  return it->second;
}

std::span<const std::byte> SafetensorsFile::raw(const std::string& name) const {
  const SafetensorsEntry& entry = info(name);
  return data_.subspan(entry.begin, entry.end - entry.begin);
}

TensorData SafetensorsFile::read(const std::string& name) const {
  const SafetensorsEntry& entry = info(name);
  TensorData tensor;
  tensor.dtype = entry.dtype;
  tensor.shape = entry.shape;
  tensor.values.resize(static_cast<size_t>(element_count(entry.shape)));
  decode_to_f32(entry.type, raw(name), tensor.values);
  return tensor;
}

void write_safetensors(const std::filesystem::path& path,
                       const std::vector<std::pair<std::string, TensorData>>& tensors,
                       const std::string& dtype,
                       const std::map<std::string, std::string>& metadata) {
  const auto type = stored_type_from_name(dtype);
  if (!type ||
      (*type != StoredType::f32 && *type != StoredType::f16 && *type != StoredType::bf16)) {
    throw std::invalid_argument("write_safetensors '" + path.string() + "': dtype '" + dtype +
                                "' is not one of F32, F16, BF16");
  }
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    const std::string where = "write_safetensors '" + path.string() + "': tensor '" + name + "': ";
    if (name.empty() || name == kMetadataKey) {
      throw std::invalid_argument(where + "name is reserved or empty");
    }
    if (!seen.insert(name).second) throw std::invalid_argument(where + "name appears twice");
    int64_t count = 0;
    try {
      count = element_count(tensor.shape);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
    if (static_cast<uint64_t>(count) != tensor.values.size()) {
      throw std::invalid_argument(where + "shape " + shape_to_string(tensor.shape) + " needs " +
                                  std::to_string(count) + " values, got " +
                                  std::to_string(tensor.values.size()));
    }
    const uint64_t size = static_cast<uint64_t>(count) * stored_type_size(*type);
    header[name] = {
        {"dtype", dtype}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string header_text = header.dump();
  // Pad with spaces (valid JSON whitespace) so the data buffer starts 8-byte aligned.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');

  write_stream_atomic(path, [&](std::ostream& out) {
    write_le_u64(out, header_text.size());
    out.write(header_text.data(), static_cast<std::streamsize>(header_text.size()));
    for (const auto& item : tensors) write_values(out, *type, item.second.values);
  });
}

}  // namespace sb
