#include "models/io/stored_type.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/io/half.h"

namespace sb {
namespace {

static_assert(std::endian::native == std::endian::little,
              "weight files are little-endian; this reader copies bytes as they are");

struct TypeFacts {
  StoredType type;
  const char* name;
  size_t size;
};

constexpr std::array<TypeFacts, 13> kTypes{{
    {StoredType::f64, "F64", 8},
    {StoredType::f32, "F32", 4},
    {StoredType::f16, "F16", 2},
    {StoredType::bf16, "BF16", 2},
    {StoredType::i64, "I64", 8},
    {StoredType::i32, "I32", 4},
    {StoredType::i16, "I16", 2},
    {StoredType::i8, "I8", 1},
    {StoredType::u64, "U64", 8},
    {StoredType::u32, "U32", 4},
    {StoredType::u16, "U16", 2},
    {StoredType::u8, "U8", 1},
    {StoredType::boolean, "BOOL", 1},
}};

const TypeFacts& facts(StoredType type) {
  for (const auto& f : kTypes) {
    if (f.type == type) return f;
  }
  throw std::invalid_argument("unknown stored type");
}

void check_sizes(StoredType type, size_t bytes, size_t elements) {
  if (bytes != elements * stored_type_size(type)) {
    throw std::invalid_argument(std::string("conversion of ") + stored_type_name(type) + ": " +
                                std::to_string(bytes) + " bytes do not hold " +
                                std::to_string(elements) + " elements");
  }
}

template <typename T, typename Convert>
void decode_each(std::span<const std::byte> bytes, std::span<float> out, Convert convert) {
  for (size_t i = 0; i < out.size(); ++i) {
    T element;
    std::memcpy(&element, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = convert(element);
  }
}

template <typename T>
void decode_plain(std::span<const std::byte> bytes, std::span<float> out) {
  decode_each<T>(bytes, out, [](T v) { return static_cast<float>(v); });
}

template <typename T>
T checked_integer(float value, StoredType type) {
  // The bounds are compared in double: every float and both limits' neighbourhoods are exact.
  const double v = value;
  const bool integral = std::isfinite(value) && std::trunc(value) == value;
  if (!integral || v < static_cast<double>(std::numeric_limits<T>::min()) ||
      v >= std::ldexp(1.0, std::numeric_limits<T>::digits)) {
    throw std::invalid_argument("value " + std::to_string(value) + " cannot be stored as " +
                                stored_type_name(type));
  }
  return static_cast<T>(value);
}

template <typename T, typename Convert>
void encode_each(std::span<const float> values, std::span<std::byte> bytes, Convert convert) {
  for (size_t i = 0; i < values.size(); ++i) {
    const T element = convert(values[i]);
    std::memcpy(bytes.data() + i * sizeof(T), &element, sizeof(T));
  }
}

template <typename T>
void encode_integer(StoredType type, std::span<const float> values, std::span<std::byte> bytes) {
  encode_each<T>(values, bytes, [type](float v) { return checked_integer<T>(v, type); });
}

}  // namespace

std::optional<StoredType> stored_type_from_name(std::string_view name) {
  for (const auto& f : kTypes) {
    if (name == f.name) return f.type;
  }
  return std::nullopt;
}

const char* stored_type_name(StoredType type) {
  return facts(type).name;
}

size_t stored_type_size(StoredType type) {
  return facts(type).size;
}

bool stored_type_is_float(StoredType type) {
  return type == StoredType::f64 || type == StoredType::f32 || type == StoredType::f16 ||
         type == StoredType::bf16;
}

void decode_to_f32(StoredType type, std::span<const std::byte> bytes, std::span<float> out) {
  check_sizes(type, bytes.size(), out.size());
  switch (type) {
    case StoredType::f32:
      if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
      return;
    case StoredType::f16:
      return decode_each<uint16_t>(bytes, out, [](uint16_t v) { return fp16_to_fp32(v); });
    case StoredType::bf16:
      return decode_each<uint16_t>(bytes, out, [](uint16_t v) { return bf16_to_fp32(v); });
    case StoredType::f64:
      return decode_plain<double>(bytes, out);
    case StoredType::i64:
      return decode_plain<int64_t>(bytes, out);
    case StoredType::i32:
      return decode_plain<int32_t>(bytes, out);
    case StoredType::i16:
      return decode_plain<int16_t>(bytes, out);
    case StoredType::i8:
      return decode_plain<int8_t>(bytes, out);
    case StoredType::u64:
      return decode_plain<uint64_t>(bytes, out);
    case StoredType::u32:
      return decode_plain<uint32_t>(bytes, out);
    case StoredType::u16:
      return decode_plain<uint16_t>(bytes, out);
    case StoredType::u8:
      return decode_plain<uint8_t>(bytes, out);
    case StoredType::boolean:
      return decode_each<uint8_t>(bytes, out, [](uint8_t v) { return v != 0 ? 1.0f : 0.0f; });
  }
}

void encode_from_f32(StoredType type, std::span<const float> values, std::span<std::byte> bytes) {
  check_sizes(type, bytes.size(), values.size());
  switch (type) {
    case StoredType::f32:
      if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
      return;
    case StoredType::f16:
      return encode_each<uint16_t>(values, bytes, [](float v) { return fp32_to_fp16(v); });
    case StoredType::bf16:
      return encode_each<uint16_t>(values, bytes, [](float v) { return fp32_to_bf16(v); });
    case StoredType::f64:
      return encode_each<double>(values, bytes, [](float v) { return static_cast<double>(v); });
    case StoredType::i64:
      return encode_integer<int64_t>(type, values, bytes);
    case StoredType::i32:
      return encode_integer<int32_t>(type, values, bytes);
    case StoredType::i16:
      return encode_integer<int16_t>(type, values, bytes);
    case StoredType::i8:
      return encode_integer<int8_t>(type, values, bytes);
    case StoredType::u64:
      return encode_integer<uint64_t>(type, values, bytes);
    case StoredType::u32:
      return encode_integer<uint32_t>(type, values, bytes);
    case StoredType::u16:
      return encode_integer<uint16_t>(type, values, bytes);
    case StoredType::u8:
      return encode_integer<uint8_t>(type, values, bytes);
    case StoredType::boolean:
      return encode_each<uint8_t>(values, bytes,
                                  [](float v) -> uint8_t { return v != 0.0f ? 1 : 0; });
  }
}

}  // namespace sb
