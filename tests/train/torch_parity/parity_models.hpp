// The parity test's two networks built with GraphBuilder from torch's initial
// weights (torch_reference.py's Mlp and Cnn, op for op), and their batch.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mote/model.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::test {

struct ParityCase {
  Tensor bytes;  // the serialized model, which `model` borrows
  std::shared_ptr<const Model> model;
  std::vector<std::string> params;  // torch's parameter names, also the constants' names
  Tensor x;                         // f32 batch
  Tensor labels;                    // i64 class indices
};

// Reads DIR/x.npy, DIR/labels.npy and DIR/init.<param>.npy written by
// torch_reference.py, and builds `model_name` ("mlp" or "cnn") from them.
Result<ParityCase> load_parity_case(const std::string& dir, const std::string& model_name);

}  // namespace mote::test
