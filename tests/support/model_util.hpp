// Models for tests, built in memory by GraphBuilder.
#pragma once

#include <memory>
#include <string>

#include "mote/graph_builder.hpp"
#include "mote/model.hpp"

namespace mote::test {

// Serialises `b` and loads it with Model::from_buffer; the bytes live as long
// as the model. `name` stands for the file name in error messages. Fails the
// test (and returns nullptr) when the builder or the loader refuses.
std::shared_ptr<const Model> load_built(const GraphBuilder& b, const std::string& name = "test.mote");

}  // namespace mote::test
