// Reading an ONNX ModelProto from a file or from memory. A .onnx file is
// untrusted input: parse failures and absurd sizes become errors, never
// crashes.
#pragma once

#include <memory>
#include <string>

#include "mote/status.hpp"

namespace onnx {
class ModelProto;
}

namespace mote::convert {

Result<std::unique_ptr<onnx::ModelProto>> read_onnx_file(const std::string& path);
// `name` stands for the file in error messages.
Result<std::unique_ptr<onnx::ModelProto>> parse_onnx(const void* data, size_t size, const std::string& name);

}  // namespace mote::convert
