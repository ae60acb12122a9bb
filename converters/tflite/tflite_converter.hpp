// TFLite -> .mote in one call: read, import, passes, write (the passes and
// the writer are the ONNX converter's, converters/common/conversion.hpp).
#pragma once

#include <string>

#include "converters/common/conversion.hpp"

namespace mote::convert {

Result<ConvertResult> convert_tflite_file(const std::string& path, const ConvertOptions& options);

}  // namespace mote::convert
