#include "tests/support/model_util.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "mote/session.hpp"

namespace mote::test {

std::shared_ptr<const Model> load_built(const GraphBuilder& b, const std::string& name) {
  auto bytes = b.serialize();
  if (!bytes.ok()) {
    ADD_FAILURE() << bytes.status().to_string();
    return nullptr;
  }
  // Weights are read in place and must be aligned: a Tensor's storage is.
  auto storage = std::make_shared<Tensor>(Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())}));
  std::memcpy(storage->raw(), bytes->data(), bytes->size());
  auto model = Model::from_buffer(storage->raw(), storage->bytes(), name);
  if (!model.ok()) {
    ADD_FAILURE() << model.status().to_string();
    return nullptr;
  }
  // Tie the bytes' lifetime to the model's through an aliasing shared_ptr;
  // members die in reverse order, so the model goes before its bytes.
  struct Holder {
    std::shared_ptr<Tensor> bytes;
    std::shared_ptr<const Model> model;
  };
  auto holder = std::make_shared<Holder>(Holder{storage, *model});
  return std::shared_ptr<const Model>(holder, holder->model.get());
}

std::vector<Tensor> run_on_cpu(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs) {
  auto session = Session::create(model, SessionOptions{});
  if (!session.ok()) {
    ADD_FAILURE() << session.status().to_string();
    return {};
  }
  auto out = (*session)->run(inputs);
  if (!out.ok()) {
    ADD_FAILURE() << out.status().to_string();
    return {};
  }
  return *out;
}

}  // namespace mote::test
