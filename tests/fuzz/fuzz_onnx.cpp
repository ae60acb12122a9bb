// Fuzz target: ONNX bytes through mote-convert's path (parse, import, graph
// passes, write); see check_conversion.hpp for what must hold.
#include "converters/onnx/onnx_converter.hpp"
#include "converters/onnx/onnx_file.hpp"
#include "onnx.pb.h"
#include "tests/fuzz/check_conversion.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mote;
  auto proto = convert::parse_onnx(data, size, "fuzz.onnx");
  if (!proto.ok()) return 0;
  // External data resolves against a folder that does not exist: nothing
  // outside the input is read.
  fuzz::check_conversion(convert::convert_onnx(**proto, "fuzz.onnx", "/nonexistent-mote-fuzz", {}));
  return 0;
}
