#include "converters/onnx/tensor_proto.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "onnx.pb.h"

namespace mote::convert {

Result<DType> dtype_from_onnx(int32_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return DType::F32;
    case onnx::TensorProto::FLOAT16: return DType::F16;
    case onnx::TensorProto::DOUBLE: return DType::F64;
    case onnx::TensorProto::INT8: return DType::I8;
    case onnx::TensorProto::UINT8: return DType::U8;
    case onnx::TensorProto::INT32: return DType::I32;
    case onnx::TensorProto::INT64: return DType::I64;
    case onnx::TensorProto::BOOL: return DType::Bool;
    default: return unsupported("element type " + onnx_type_name(onnx_type) + " has no Mote dtype");
  }
}

int32_t onnx_type_from_dtype(DType dtype) {
  switch (dtype) {
    case DType::F32: return onnx::TensorProto::FLOAT;
    case DType::F16: return onnx::TensorProto::FLOAT16;
    case DType::F64: return onnx::TensorProto::DOUBLE;
    case DType::I8: return onnx::TensorProto::INT8;
    case DType::U8: return onnx::TensorProto::UINT8;
    case DType::I32: return onnx::TensorProto::INT32;
    case DType::I64: return onnx::TensorProto::INT64;
    case DType::Bool: return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

std::string onnx_type_name(int32_t onnx_type) {
  // The 1.12 onnx.proto we compile against names types up to BFLOAT16;
  // later ones (8-bit and 4-bit floats, 4-bit ints) are named here.
  if (onnx::TensorProto::DataType_IsValid(onnx_type)) {
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_type));
  }
  switch (onnx_type) {
    case 17: return "FLOAT8E4M3FN";
    case 18: return "FLOAT8E4M3FNUZ";
    case 19: return "FLOAT8E5M2";
    case 20: return "FLOAT8E5M2FNUZ";
    case 21: return "UINT4";
    case 22: return "INT4";
    case 23: return "FLOAT4E2M1";
    default: return "type " + std::to_string(onnx_type);
  }
}

namespace {

// Reads `length` bytes at `offset` of an external data file, refusing paths
// that leave the model's directory (an untrusted model must not read
// arbitrary files).
Result<std::vector<uint8_t>> read_external(const onnx::TensorProto& proto, const std::string& model_dir,
                                           const std::string& what, size_t expected) {
  namespace fs = std::filesystem;
  std::string location;
  uint64_t offset = 0;
  int64_t length = -1;
  for (const auto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoull(entry.value());
      if (entry.key() == "length") length = std::stoll(entry.value());
    } catch (const std::exception&) {
      return invalid_model(what + ": external data '" + entry.key() + "' is not a number: '" + entry.value() + "'");
    }
  }
  if (location.empty()) return invalid_model(what + ": external data without a 'location'");
  fs::path rel(location);
  if (rel.is_absolute()) {
    return invalid_model(what + ": external data location '" + location + "' is absolute; it must be relative to the model's directory");
  }
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(model_dir.empty() ? "." : model_dir), ec);
  if (ec) return io_error(what + ": cannot resolve the model directory '" + model_dir + "': " + ec.message());
  fs::path full = fs::weakly_canonical(base / rel, ec);
  if (ec) return io_error(what + ": cannot resolve external data '" + location + "': " + ec.message());
  // Compare path components: full must start with base.
  auto mismatch = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (mismatch.first != base.end()) {
    return invalid_model(what + ": external data location '" + location + "' escapes the model's directory");
  }
  std::ifstream in(full, std::ios::binary | std::ios::ate);
  if (!in) return io_error(what + ": cannot open external data file '" + full.string() + "'");
  uint64_t file_size = static_cast<uint64_t>(in.tellg());
  uint64_t size = length >= 0 ? static_cast<uint64_t>(length) : file_size - std::min(offset, file_size);
  if (offset > file_size || size > file_size - offset) {
    return invalid_model(what + ": external data [" + std::to_string(offset) + ", +" + std::to_string(size) +
                         ") lies outside '" + location + "' of " + std::to_string(file_size) + " bytes");
  }
  if (size != expected) {
    return invalid_model(what + ": external data holds " + std::to_string(size) + " bytes, the tensor needs " +
                         std::to_string(expected));
  }
  std::vector<uint8_t> bytes(size);
  in.seekg(static_cast<std::streamoff>(offset));
  if (size && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    return io_error(what + ": reading external data '" + location + "' failed");
  }
  return bytes;
}

// Copies a typed repeated field into `t`, converting each element; ONNX
// stores bool, int8, uint8 and float16 (as bits) in int32_data.
template <class Dst, class Field>
Status copy_field(const Field& field, Tensor& t, const std::string& what, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != t.numel()) {
    return invalid_model(what + ": " + field_name + " holds " + std::to_string(field.size()) + " values, shape " +
                         shape_to_string(t.shape()) + " needs " + std::to_string(t.numel()));
  }
  Dst* out = t.data<Dst>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Dst>(field.Get(i));
  return {};
}

}  // namespace

Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                                 const std::string& what) {
  if (proto.has_segment()) return unsupported(what + ": segmented tensors are not supported");
  auto dtype = dtype_from_onnx(proto.data_type());
  if (!dtype.ok()) return unsupported(what + ": " + dtype.status().message());
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape) {
    if (d < 0) return invalid_model(what + ": negative dimension in shape " + shape_to_string(shape));
  }
  int64_t numel = shape_numel(shape);
  if (numel < 0) return invalid_model(what + ": shape " + shape_to_string(shape) + " overflows");
  const size_t elem = dtype_size(*dtype);
  if (static_cast<uint64_t>(numel) > (uint64_t{1} << 40) / elem) {
    return invalid_model(what + ": shape " + shape_to_string(shape) + " is implausibly large");
  }
  const size_t bytes = static_cast<size_t>(numel) * elem;

  const bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || proto.has_raw_data()) {
    std::vector<uint8_t> ext;
    const void* src = nullptr;
    size_t size = 0;
    if (external) {
      MOTE_ASSIGN_OR_RETURN(ext, read_external(proto, model_dir, what, bytes));
      src = ext.data();
      size = ext.size();
    } else {
      src = proto.raw_data().data();
      size = proto.raw_data().size();
    }
    if (size != bytes) {
      return invalid_model(what + ": raw data holds " + std::to_string(size) + " bytes, " + dtype_name(*dtype) + " " +
                           shape_to_string(shape) + " needs " + std::to_string(bytes));
    }
    Tensor t = Tensor::zeros(*dtype, shape);
    // ONNX raw data is little-endian, as are all targets Mote builds for.
    if (bytes) std::memcpy(t.raw(), src, bytes);
    if (*dtype == DType::Bool) {
      // Normalise: any non-zero byte is true.
      for (int64_t i = 0; i < numel; ++i) t.data<uint8_t>()[i] = t.data<uint8_t>()[i] ? 1 : 0;
    }
    return t;
  }

  // Check the field's length before allocating: a corrupt shape must not
  // make the converter allocate terabytes.
  int64_t field_size = 0;
  switch (*dtype) {
    case DType::F32: field_size = proto.float_data_size(); break;
    case DType::F64: field_size = proto.double_data_size(); break;
    case DType::I64: field_size = proto.int64_data_size(); break;
    default: field_size = proto.int32_data_size(); break;
  }
  if (field_size != numel) {
    return invalid_model(what + ": holds " + std::to_string(field_size) + " values, shape " + shape_to_string(shape) +
                         " needs " + std::to_string(numel));
  }
  Tensor t = Tensor::zeros(*dtype, shape);
  switch (*dtype) {
    case DType::F32: MOTE_RETURN_IF_ERROR(copy_field<float>(proto.float_data(), t, what, "float_data")); break;
    case DType::F64: MOTE_RETURN_IF_ERROR(copy_field<double>(proto.double_data(), t, what, "double_data")); break;
    case DType::I64: MOTE_RETURN_IF_ERROR(copy_field<int64_t>(proto.int64_data(), t, what, "int64_data")); break;
    case DType::I32: MOTE_RETURN_IF_ERROR(copy_field<int32_t>(proto.int32_data(), t, what, "int32_data")); break;
    case DType::I8: MOTE_RETURN_IF_ERROR(copy_field<int8_t>(proto.int32_data(), t, what, "int32_data")); break;
    case DType::U8: MOTE_RETURN_IF_ERROR(copy_field<uint8_t>(proto.int32_data(), t, what, "int32_data")); break;
    case DType::F16: MOTE_RETURN_IF_ERROR(copy_field<uint16_t>(proto.int32_data(), t, what, "int32_data")); break;
    case DType::Bool:
      for (int64_t i = 0; i < numel; ++i) t.data<uint8_t>()[i] = proto.int32_data(static_cast<int>(i)) != 0;
      break;
  }
  return t;
}

}  // namespace mote::convert
