#include "models/io/npy.h"

#include <array>
#include <cctype>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "models/io/mapped_file.h"
#include "models/io/stored_type.h"
#include "schema/atomic_file.h"

namespace sb {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kHeaderAlignment = 64;  // what numpy itself pads to

struct NpyType {
  const char* descr;
  StoredType type;
};

// Single-byte types have no byte order; numpy writes '|' but '<' means the same for them.
constexpr std::array<NpyType, 15> kNpyTypes{{
    {"<f4", StoredType::f32},
    {"<f2", StoredType::f16},
    {"<f8", StoredType::f64},
    {"<i8", StoredType::i64},
    {"<i4", StoredType::i32},
    {"<i2", StoredType::i16},
    {"|i1", StoredType::i8},
    {"<i1", StoredType::i8},
    {"<u8", StoredType::u64},
    {"<u4", StoredType::u32},
    {"<u2", StoredType::u16},
    {"|u1", StoredType::u8},
    {"<u1", StoredType::u8},
    {"|b1", StoredType::boolean},
    {"<b1", StoredType::boolean},
}};

std::optional<StoredType> npy_type(std::string_view descr) {
  for (const auto& t : kNpyTypes) {
    if (descr == t.descr) return t.type;
  }
  return std::nullopt;
}

std::invalid_argument npy_error(const std::filesystem::path& path, const std::string& what) {
  return std::invalid_argument("npy file '" + path.string() + "': " + what);
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

// Parses the Python dict literal numpy writes, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(const std::filesystem::path& path, std::string_view text)
      : path_(path), text_(text) {}

  NpyHeader parse() {
    NpyHeader header;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') {
          throw fail("structured dtypes are not supported (descr is not a string)");
        }
        header.descr = parse_string();
        header.has_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = parse_bool();
        header.has_order = true;
      } else if (key == "shape") {
        header.shape = parse_tuple();
        header.has_shape = true;
      } else {
        throw fail("unexpected header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        throw fail("expected ',' or '}' at header offset " + std::to_string(pos_));
      }
    }
    ++pos_;
    if (!header.has_descr || !header.has_order || !header.has_shape) {
      throw fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return header;
  }

 private:
  std::invalid_argument fail(const std::string& what) const {
    constexpr size_t kShown = 200;  // enough to recognise the header, bounded for hostile input
    const std::string shown(text_.substr(0, kShown));
    return npy_error(path_,
                     what + " in header \"" + shown + (text_.size() > kShown ? "...\"" : "\""));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) {
      throw fail(std::string("expected '") + c + "' at header offset " + std::to_string(pos_));
    }
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      throw fail("expected a quoted string at offset " + std::to_string(pos_));
    const size_t close = text_.find(quote, pos_ + 1);
    if (close == std::string_view::npos) throw fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return value;
  }
  bool parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    throw fail("'fortran_order' is neither True nor False");
  }
  std::vector<int64_t> parse_tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) {
        throw fail("'shape' holds something other than a non-negative integer");
      }
      int64_t dim = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (dim > (INT64_MAX - 9) / 10) throw fail("a dimension in 'shape' is too large");
        dim = dim * 10 + (text_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2 long suffix
      dims.push_back(dim);
      if (dims.size() > kMaxDimensions) {
        throw fail("'shape' has more than " + std::to_string(kMaxDimensions) + " dimensions");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        throw fail("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;
    return dims;
  }

  const std::filesystem::path& path_;
  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t read_le(const std::byte* bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | std::to_integer<uint32_t>(bytes[i]);
  return value;
}

std::string shape_tuple(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

TensorData read_npy(const std::filesystem::path& path) {
  const MappedFile file(path);
  const std::span<const std::byte> bytes = file.bytes();
  if (bytes.size() < kMagic.size() + 2 ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    throw npy_error(path, "bad magic: not a .npy file");
  }
  const auto major = std::to_integer<int>(bytes[6]);
  if (major < 1 || major > 3) {
    throw npy_error(path, "unsupported format version " + std::to_string(major) + "." +
                              std::to_string(std::to_integer<int>(bytes[7])));
  }
  const int length_bytes = major == 1 ? 2 : 4;
  const size_t prelude = kMagic.size() + 2 + length_bytes;
  if (bytes.size() < prelude) throw npy_error(path, "truncated before the header length");
  const uint32_t header_size = read_le(bytes.data() + kMagic.size() + 2, length_bytes);
  if (header_size > bytes.size() - prelude) {
    throw npy_error(path, "header length " + std::to_string(header_size) +
                              " is larger than the file (truncated?)");
  }
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data() + prelude),
                                     header_size);
  const NpyHeader header = HeaderParser(path, header_text).parse();
  if (header.fortran_order) {
    throw npy_error(path, "fortran_order True is not supported (save a C-order array)");
  }
  const auto type = npy_type(header.descr);
  if (!type) {
    const bool big_endian = !header.descr.empty() && header.descr[0] == '>';
    throw npy_error(
        path, "unsupported dtype '" + header.descr + "'" + (big_endian ? " (big-endian)" : ""));
  }

  TensorData tensor;
  tensor.dtype = stored_type_name(*type);
  tensor.shape = header.shape;
  int64_t count = 0;
  try {
    count = element_count(tensor.shape);
  } catch (const std::invalid_argument& e) {
    throw npy_error(path, e.what());
  }
  const std::span<const std::byte> data = bytes.subspan(prelude + header_size);
  uint64_t needed = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), stored_type_size(*type), &needed) ||
      needed != data.size()) {
    throw npy_error(path, "shape " + shape_to_string(tensor.shape) + " of '" + header.descr +
                              "' needs " + std::to_string(needed) +
                              " bytes of data, the file has " + std::to_string(data.size()) +
                              (needed > data.size() ? " (truncated)" : ""));
  }
  tensor.values.resize(static_cast<size_t>(count));
  decode_to_f32(*type, data, tensor.values);
  return tensor;
}

void write_npy(const std::filesystem::path& path, const TensorData& tensor,
               const std::string& descr) {
  const auto type = npy_type(descr);
  if (!type)
    throw std::invalid_argument("write_npy '" + path.string() + "': unsupported descr '" + descr +
                                "'");
  const int64_t count = element_count(tensor.shape);
  if (static_cast<uint64_t>(count) != tensor.values.size()) {
    throw std::invalid_argument("write_npy '" + path.string() + "': shape " +
                                shape_to_string(tensor.shape) + " needs " + std::to_string(count) +
                                " values, got " + std::to_string(tensor.values.size()));
  }
  std::vector<std::byte> data(tensor.values.size() * stored_type_size(*type));
  encode_from_f32(*type, tensor.values, data);

  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape_tuple(tensor.shape) + ", }";
  const bool version1 = header.size() + kHeaderAlignment + kMagic.size() + 4 <= 65535;
  const size_t prelude = kMagic.size() + 2 + (version1 ? 2 : 4);
  header.append(
      (kHeaderAlignment - (prelude + header.size() + 1) % kHeaderAlignment) % kHeaderAlignment,
      ' ');
  header += '\n';

  write_stream_atomic(path, [&](std::ostream& out) {
    out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
    out.put(static_cast<char>(version1 ? 1 : 2));
    out.put(0);
    const uint32_t size = static_cast<uint32_t>(header.size());
    for (int i = 0; i < (version1 ? 2 : 4); ++i)
      out.put(static_cast<char>((size >> (8 * i)) & 0xffu));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
  });
}

}  // namespace sb
