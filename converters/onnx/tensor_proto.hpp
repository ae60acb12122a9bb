// ONNX TensorProto <-> mote::Tensor, and ONNX element types <-> DType.
#pragma once

#include <cstdint>
#include <string>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace onnx {
class TensorProto;
}

namespace mote::convert {

// The DType of an ONNX TensorProto.DataType value; unsupported for types Mote
// has no dtype for (strings, bfloat16, unsigned 16/32/64-bit, complex, 8-bit
// and 4-bit floats...).
Result<DType> dtype_from_onnx(int32_t onnx_type);
int32_t onnx_type_from_dtype(DType dtype);
// "FLOAT", "INT64"... for messages.
std::string onnx_type_name(int32_t onnx_type);

// The tensor's contents, from raw_data, the typed fields or an external data
// file. `model_dir` is the directory of the .onnx file: external data paths
// are relative to it and may not leave it. `what` names the tensor in errors.
Result<Tensor> tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                                 const std::string& what);

}  // namespace mote::convert
