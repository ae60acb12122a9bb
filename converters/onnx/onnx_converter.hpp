// ONNX -> .mote in one call: import, passes, write. mote-convert and the
// conformance runner both convert through here, so they test the same path.
#pragma once

#include <string>

#include "converters/common/conversion.hpp"
#include "converters/onnx/importer.hpp"

namespace mote::convert {

Result<ConvertResult> convert_onnx(const onnx::ModelProto& model, const std::string& file,
                                   const std::string& model_dir, const ConvertOptions& options);
Result<ConvertResult> convert_onnx_file(const std::string& path, const ConvertOptions& options);

}  // namespace mote::convert
