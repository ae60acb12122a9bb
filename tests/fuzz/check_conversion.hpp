// What the converter fuzz targets (onnx, tflite) require of a conversion:
// an input may be refused with an error, but what the converter does write
// must pass the .mote verifier (write_mote verifies its own output, so that
// failing is a converter bug too). Aborts, for the fuzzer, when it does not.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "converters/common/conversion.hpp"
#include "mote/model.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace mote::fuzz {

inline void check_conversion(const Result<convert::ConvertResult>& converted) {
  if (!converted.ok()) {
    if (converted.status().message().find("the model written fails verification") != std::string::npos) {
      std::fprintf(stderr, "%s\n", converted.status().to_string().c_str());
      std::abort();
    }
    return;
  }
  Tensor bytes = aligned_copy(converted->mote.data(), converted->mote.size());
  auto model = Model::from_buffer(bytes.raw(), converted->mote.size(), "converted.mote");
  if (!model.ok()) {
    std::fprintf(stderr, "the converter wrote a model the verifier refuses: %s\n", model.status().to_string().c_str());
    std::abort();
  }
}

}  // namespace mote::fuzz
