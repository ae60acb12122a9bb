// The input tensors of a mote-run invocation: read from .npy files given with
// --input, or filled with seeded random values in the shape given with
// --shape (or the declared one).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mote/model.hpp"

namespace mote::tools {

struct InputOptions {
  std::map<std::string, std::string> files;  // input name -> .npy path
  std::map<std::string, Shape> shapes;       // input name -> shape for random data
  uint32_t seed = 0;
};

struct PreparedInput {
  Tensor tensor;
  std::string source;  // "x.npy" or "random"
};

// One tensor per model input, in the model's input order. Errors name the
// input and file: unknown names, dtype or shape mismatches, dynamic inputs
// with neither a file nor a --shape.
Result<std::vector<PreparedInput>> make_inputs(const Model& model, const InputOptions& options);

}  // namespace mote::tools
