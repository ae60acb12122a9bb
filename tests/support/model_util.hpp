// Models for tests, built in memory by GraphBuilder.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mote/graph_builder.hpp"
#include "mote/model.hpp"
#include "mote/tensor.hpp"

namespace mote::test {

// Serialises `b` and loads it with Model::from_buffer; the bytes live as long
// as the model. `name` stands for the file name in error messages. Fails the
// test (and returns nullptr) when the builder or the loader refuses.
std::shared_ptr<const Model> load_built(const GraphBuilder& b, const std::string& name = "test.mote");

// The outputs of `model` on the CPU backend (the reference the GPU tests
// compare with); fails the test and returns none when it cannot run.
std::vector<Tensor> run_on_cpu(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs);

}  // namespace mote::test
