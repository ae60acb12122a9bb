#include "converters/common/npy.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <vector>

namespace mote::convert {
namespace {

struct DescrEntry {
  const char* descr;
  DType dtype;
};
// '|' marks byte-sized types, where numpy writes no byte order.
constexpr DescrEntry kDescrs[] = {
    {"<f4", DType::F32}, {"<f2", DType::F16}, {"<f8", DType::F64}, {"|i1", DType::I8}, {"|u1", DType::U8},
    {"<i4", DType::I32}, {"<i8", DType::I64}, {"|b1", DType::Bool},
};

// The value of `key` in the header's Python dict literal, as raw text.
std::string header_field(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return {};
  at = header.find(':', at);
  if (at == std::string::npos) return {};
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at >= header.size()) return {};
  char open = header[at];
  char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  size_t end = header.find(close, at + 1);
  if (end == std::string::npos) return {};
  return header.substr(at, end - at + (close == ',' ? 0 : 1));
}

}  // namespace

Result<Tensor> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path + ": cannot open");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) return invalid_argument(path + ": not a .npy file");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    uint8_t b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) return invalid_argument(path + ": truncated header");
    header_len = b[0] | (b[1] << 8);
  } else {
    uint8_t b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) return invalid_argument(path + ": truncated header");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  }
  if (header_len > (1u << 20)) return invalid_argument(path + ": header too large");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) return invalid_argument(path + ": truncated header");

  std::string descr = header_field(header, "descr");
  if (descr.size() >= 2) descr = descr.substr(1, descr.size() - 2);
  if (descr == "<b1" || descr == "=b1") descr = "|b1";
  if (descr == "<i1" || descr == "=i1") descr = "|i1";
  if (descr == "<u1" || descr == "=u1") descr = "|u1";
  const DescrEntry* entry = nullptr;
  for (const auto& e : kDescrs) {
    if (descr == e.descr) entry = &e;
  }
  if (!entry) return unsupported(path + ": element type '" + descr + "' is not supported");
  if (header_field(header, "fortran_order").rfind("True", 0) == 0) {
    return unsupported(path + ": Fortran-order arrays are not supported; save with np.ascontiguousarray");
  }
  std::string dims = header_field(header, "shape");
  Shape shape;
  for (size_t i = 1; i + 1 < dims.size();) {
    while (i + 1 < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i + 1 >= dims.size()) break;
    size_t end = i;
    while (end + 1 < dims.size() && std::isdigit(static_cast<unsigned char>(dims[end]))) ++end;
    if (end == i) return invalid_argument(path + ": bad shape " + dims);
    shape.push_back(std::stoll(dims.substr(i, end - i)));
    i = end;
  }
  if (shape_numel(shape) < 0) return invalid_argument(path + ": bad shape " + dims);
  Tensor t = Tensor::zeros(entry->dtype, shape);
  if (t.bytes() && !in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.bytes()))) {
    return invalid_argument(path + ": data shorter than shape " + shape_to_string(shape) + " needs");
  }
  return t;
}

Status write_npy(const std::string& path, const Tensor& tensor) {
  const char* descr = nullptr;
  for (const auto& e : kDescrs) {
    if (e.dtype == tensor.dtype()) descr = e.descr;
  }
  if (!descr) return unsupported(path + ": cannot write dtype " + dtype_name(tensor.dtype()));
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) shape += std::to_string(tensor.shape()[i]) + (tensor.shape().size() == 1 ? "," : i + 1 < tensor.shape().size() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so magic + length + header + newline is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return io_error(path + ": cannot create");
  const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(magic, 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  if (tensor.bytes()) out.write(static_cast<const char*>(tensor.raw()), static_cast<std::streamsize>(tensor.bytes()));
  if (!out) return io_error(path + ": write failed");
  return {};
}

}  // namespace mote::convert
