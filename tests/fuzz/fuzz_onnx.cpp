// Fuzz target: ONNX bytes through mote-convert's path (parse, import, graph
// passes, write). Any input may be refused with an error; what the converter
// does write must pass the .mote verifier, or the converter has a bug.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "converters/onnx/onnx_converter.hpp"
#include "converters/onnx/onnx_file.hpp"
#include "mote/model.hpp"
#include "onnx.pb.h"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mote;
  auto proto = convert::parse_onnx(data, size, "fuzz.onnx");
  if (!proto.ok()) return 0;
  // External data resolves against a folder that does not exist: nothing
  // outside the input is read.
  auto converted = convert::convert_onnx(**proto, "fuzz.onnx", "/nonexistent-mote-fuzz", {});
  if (!converted.ok()) {
    // write_mote verifies its own output; that failing is a converter bug.
    if (converted.status().message().find("the model written fails verification") != std::string::npos) {
      std::fprintf(stderr, "%s\n", converted.status().to_string().c_str());
      std::abort();
    }
    return 0;
  }
  Tensor bytes = fuzz::aligned_copy(converted->mote.data(), converted->mote.size());
  auto model = Model::from_buffer(bytes.raw(), converted->mote.size(), "converted.mote");
  if (!model.ok()) {
    std::fprintf(stderr, "the converter wrote a model the verifier refuses: %s\n", model.status().to_string().c_str());
    std::abort();
  }
  return 0;
}
