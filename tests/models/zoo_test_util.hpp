// Loading GraphBuilder models in memory, for the whole-network tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "mote/mote.hpp"

namespace mote::test {

// Serialises `builder` and loads the bytes as a Model; the bytes stay alive
// for the rest of the test program (models borrow them).
inline std::shared_ptr<const Model> load_built_model(const GraphBuilder& builder) {
  auto bytes = builder.serialize();
  EXPECT_TRUE(bytes.ok());
  static std::vector<Tensor> keep_alive;
  Tensor storage = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), storage.data<uint8_t>());
  keep_alive.push_back(storage);
  auto model = Model::from_buffer(storage.raw(), storage.bytes(), "zoo.mote");
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return *model;
}

}  // namespace mote::test
