// Builds y = relu(x) with the installed headers and library and checks it.
#include <cstdio>

#include "mote/mote.hpp"

int main() {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {3});
  b.mark_output(b.add_op(mote::fb::OpType::Relu, {x})[0], "y");
  auto bytes = b.serialize();
  if (!bytes.ok()) return 1;
  mote::Tensor storage = mote::Tensor::zeros(mote::DType::U8, {static_cast<int64_t>(bytes->size())});
  std::copy(bytes->begin(), bytes->end(), storage.data<uint8_t>());
  auto model = mote::Model::from_buffer(storage.raw(), storage.bytes());
  if (!model.ok()) return 2;
  auto session = mote::Session::create(*model);
  auto out = (*session)->run({mote::Tensor::from_vector<float>({3}, {-1.0f, 0.5f, 2.0f})});
  if (!out.ok()) return 3;
  const float* y = (*out)[0].data<float>();
  bool ok = y[0] == 0.0f && y[1] == 0.5f && y[2] == 2.0f;
  std::printf("consumer: relu -> %g %g %g (%s)\n", y[0], y[1], y[2], ok ? "ok" : "WRONG");
  return ok ? 0 : 4;
}
