#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace sb {

// The element types weight and input files store, named as safetensors names them. Values are
// always handed to models as fp32; integer types carry token ids and one-hot inputs.
enum class StoredType : uint8_t {
  f64,
  f32,
  f16,
  bf16,
  i64,
  i32,
  i16,
  i8,
  u64,
  u32,
  u16,
  u8,
  boolean
};

// "F32", "BF16", "I64", "BOOL", ...; nullopt for names this reader does not know.
std::optional<StoredType> stored_type_from_name(std::string_view name);
const char* stored_type_name(StoredType type);
size_t stored_type_size(StoredType type);
// F64, F32, F16 and BF16: the types a floating-point value (a weight) may be stored as.
bool stored_type_is_float(StoredType type);

// Decodes little-endian elements (bytes.size() == out.size() * element size; unaligned is fine).
void decode_to_f32(StoredType type, std::span<const std::byte> bytes, std::span<float> out);

// Encodes to little-endian elements. Integer targets need integral values in range and throw
// std::invalid_argument otherwise; BOOL stores any non-zero value as 1.
void encode_from_f32(StoredType type, std::span<const float> values, std::span<std::byte> bytes);

}  // namespace sb
