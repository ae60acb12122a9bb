// .npy reading and writing; the format is described at
// numpy.org/doc/stable/reference/generated/numpy.lib.format.html.
#include "sdk/tools/common/npy.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>

namespace mote::tools {

// The reader and writer copy element bytes as they are; .npy data here is
// little-endian, so the host must be too (every target Mote has today is).
static_assert(std::endian::native == std::endian::little, ".npy I/O assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlignment = 64;  // where numpy >= 1.14 starts the data

struct DTypeCode {
  DType dtype;
  const char* code;  // kind and item size, as in the descr after the byte order
};
constexpr DTypeCode kDTypeCodes[] = {
    {DType::F32, "f4"}, {DType::F64, "f8"}, {DType::F16, "f2"}, {DType::I8, "i1"},
    {DType::U8, "u1"},  {DType::I32, "i4"}, {DType::I64, "i8"}, {DType::Bool, "b1"},
};

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This parser accepts exactly that grammar (with any spacing) and nothing
// more general: no escapes, no nested containers but the shape tuple.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  struct Fields {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
  };

  Result<Fields> parse() {
    Fields fields;
    bool have_descr = false, have_order = false, have_shape = false;
    if (!consume('{')) return error("expected '{'");
    while (!consume('}')) {
      MOTE_ASSIGN_OR_RETURN(std::string key, string_literal());
      if (!consume(':')) return error("expected ':' after '" + key + "'");
      bool* seen = nullptr;
      if (key == "descr") {
        skip_space();
        if (pos_ < text_.size() && (text_[pos_] == '[' || text_[pos_] == '{')) {
          return error("structured dtypes are not supported");
        }
        MOTE_ASSIGN_OR_RETURN(fields.descr, string_literal());
        seen = &have_descr;
      } else if (key == "fortran_order") {
        MOTE_ASSIGN_OR_RETURN(fields.fortran_order, boolean());
        seen = &have_order;
      } else if (key == "shape") {
        MOTE_ASSIGN_OR_RETURN(fields.shape, tuple());
        seen = &have_shape;
      } else {
        return error("unexpected key '" + key + "'");
      }
      if (*seen) return error("key '" + key + "' appears twice");
      *seen = true;
      if (!consume(',')) {
        if (!consume('}')) return error("expected ',' or '}'");
        break;
      }
    }
    skip_space();  // numpy pads with spaces and ends with '\n'
    if (pos_ != text_.size()) return error("unexpected text after the dict");
    if (!have_descr || !have_order || !have_shape) {
      return error("the header needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    return fields;
  }

 private:
  Status error(const std::string& what) const {
    return invalid_argument("malformed header at byte " + std::to_string(pos_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consume_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Result<std::string> string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return error("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return error("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    if (value.find('\\') != std::string::npos) return error("escapes in strings are not supported");
    pos_ = end + 1;
    return value;
  }

  Result<bool> boolean() {
    if (consume_word("True")) return true;
    if (consume_word("False")) return false;
    return error("expected True or False");
  }

  Result<Shape> tuple() {
    if (!consume('(')) return error("expected '(' to start the shape");
    Shape shape;
    while (!consume(')')) {
      MOTE_ASSIGN_OR_RETURN(int64_t dim, integer());
      shape.push_back(dim);
      if (!consume(',')) {
        if (!consume(')')) return error("expected ',' or ')' in the shape");
        break;
      }
    }
    return shape;
  }

  Result<int64_t> integer() {
    skip_space();
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) return error("dimension too large");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return error("expected a non-negative integer dimension");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // written by Python 2's numpy
    return value;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<DType> parse_descr(const std::string& descr) {
  if (descr.size() == 3) {
    char order = descr[0];
    std::string_view code(descr.data() + 1, 2);
    for (const DTypeCode& c : kDTypeCodes) {
      if (code != c.code) continue;
      // One-byte types have no byte order: numpy writes '|', any marker will do.
      bool one_byte = code[1] == '1';
      if (one_byte && (order == '|' || order == '<' || order == '>' || order == '=')) return c.dtype;
      if (order == '<' || order == '=') return c.dtype;  // '=' is native, i.e. little (asserted above)
      if (order == '>') return unsupported("big-endian dtype '" + descr + "' is not supported; save with '<'");
    }
  }
  return unsupported("dtype '" + descr + "' is not supported (expected one of f2 f4 f8 i1 u1 i4 i8 b1)");
}

const char* descr_for(DType dtype) {
  switch (dtype) {
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::F16: return "<f2";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::Bool: return "|b1";
  }
  return nullptr;
}

uint32_t read_le(const uint8_t* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

Result<Tensor> parse_npy(const void* data, size_t size, const std::string& name) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  auto fail = [&](const Status& s) { return Status(s.code(), name + ": " + s.message()); };
  if (size < 10 || std::memcmp(bytes, kMagic.data(), kMagic.size()) != 0) {
    return fail(invalid_argument("not a .npy file (no \\x93NUMPY magic)"));
  }
  uint8_t major = bytes[6];
  if (major < 1 || major > 3) {
    return fail(unsupported(".npy format version " + std::to_string(major) + " is not supported (1 to 3 are)"));
  }
  size_t length_bytes = major == 1 ? 2 : 4;
  size_t prefix = 8 + length_bytes;
  if (size < prefix) return fail(invalid_argument("truncated before the header length"));
  size_t header_len = read_le(bytes + 8, length_bytes);
  if (header_len > size - prefix) {
    return fail(invalid_argument("truncated: the header claims " + std::to_string(header_len) +
                                 " bytes, the file has " +
                                 std::to_string(size - prefix) + " after the prefix"));
  }
  std::string_view header(reinterpret_cast<const char*>(bytes + prefix), header_len);
  auto fields = HeaderParser(header).parse();
  if (!fields.ok()) return fail(fields.status());
  if (fields->fortran_order) {
    return fail(unsupported("Fortran-order arrays are not supported; save a C-order copy (np.ascontiguousarray)"));
  }
  auto dtype = parse_descr(fields->descr);
  if (!dtype.ok()) return fail(dtype.status());

  int64_t numel = shape_numel(fields->shape);
  size_t item = dtype_size(*dtype);
  size_t available = size - prefix - header_len;
  if (numel < 0 || static_cast<uint64_t>(numel) > std::numeric_limits<size_t>::max() / item) {
    return fail(invalid_argument("shape " + shape_to_string(fields->shape) + " is too large"));
  }
  size_t needed = static_cast<size_t>(numel) * item;
  if (needed != available) {
    return fail(invalid_argument("the header describes " + std::to_string(needed) + " bytes of " +
                                 dtype_name(*dtype) + " data (shape " + shape_to_string(fields->shape) +
                                 "), the file holds " + std::to_string(available)));
  }
  Tensor tensor = Tensor::zeros(*dtype, fields->shape);
  if (needed > 0 && tensor.raw() == nullptr) {
    return fail(Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(needed) + " bytes"));
  }
  if (needed > 0) std::memcpy(tensor.raw(), bytes + prefix + header_len, needed);
  if (*dtype == DType::Bool) {
    // Kernels may rely on bools being exactly 0 or 1; numpy writes only those,
    // but a hand-made file might not.
    auto* b = tensor.data<uint8_t>();
    for (size_t i = 0; i < needed; ++i) b[i] = b[i] != 0;
  }
  return tensor;
}

Result<Tensor> read_npy(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (!std::filesystem::exists(path, ec)) return not_found(path + ": no such file");
    return invalid_argument(path + ": not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path + ": cannot open: " + std::strerror(errno));
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return io_error(path + ": read failed");
  return parse_npy(bytes.data(), bytes.size(), path);
}

Result<std::vector<uint8_t>> encode_npy(const Tensor& tensor) {
  const char* descr = descr_for(tensor.dtype());
  if (!descr) return unsupported(std::string("cannot write dtype ") + dtype_name(tensor.dtype()) + " to .npy");
  if (tensor.numel() > 0 && tensor.raw() == nullptr) return invalid_argument("tensor has no data");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape += std::to_string(tensor.shape()[i]);
    shape += tensor.shape().size() == 1 ? "," : (i + 1 < tensor.shape().size() ? ", " : "");
  }
  shape += ")";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";

  // Version 1 stores the header length in 16 bits; longer headers need 2.
  size_t prefix = 10;
  uint8_t major = 1;
  size_t total = (prefix + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  if (total - prefix > 0xFFFF) {
    prefix = 12;
    major = 2;
    total = (prefix + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  }
  size_t header_len = total - prefix;
  dict.append(header_len - dict.size() - 1, ' ');
  dict += '\n';

  std::vector<uint8_t> out;
  out.reserve(total + tensor.bytes());
  out.insert(out.end(), kMagic.begin(), kMagic.end());
  out.push_back(major);
  out.push_back(0);
  for (size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<uint8_t>(header_len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  const auto* data = static_cast<const uint8_t*>(tensor.raw());
  if (tensor.bytes() > 0) out.insert(out.end(), data, data + tensor.bytes());
  return out;
}

Status write_npy(const std::string& path, const Tensor& tensor) {
  auto encoded = encode_npy(tensor);
  if (!encoded.ok()) return encoded.status().with_context(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return io_error(path + ": cannot create: " + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(encoded->data()), static_cast<std::streamsize>(encoded->size()));
  out.close();
  if (!out) return io_error(path + ": write failed");
  return {};
}

}  // namespace mote::tools
