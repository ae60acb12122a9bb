// Writes the small models the tool tests run, into the directory given:
//   relu.mote     input "data/x" f32 2x3 -> Relu -> output "head/relu:0"
//                 (names with '/' and ':' as converted models have them)
//   dynamic.mote  input "x" f32 ?x4 -> Relu -> output "y"
//   weights.mote  as relu.mote, plus a 4x4 f32 constant "w" (values 0..15)
//                 passed straight to a second output: a file with a weight
//                 segment, for parameter counts and truncation tests
//   matmul.mote   input "x" f32 128x32 -> MatMul with a 32x48 constant -> "y"
//                 (a GEMM for mote-bench --tune)
//   overflow.mote input "x" f32 64x64 -> Mul 1e5 "scale_up" -> Mul 1e-5
//                 "scale_down" -> Relu "relu" -> "y": values past f16's range
//                 in the middle (for --fp16 auto)
//   newer.mote    one op of type 4000, unknown to this schema (as if written
//                 by a newer Mote)
#include <cstdio>
#include <string>

#include "mote/mote.hpp"

namespace {

mote::Status write_relu(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("data/x", mote::DType::F32, {2, 3});
  b.mark_output(b.add_op(mote::fb::OpType::Relu, {x})[0], "head/relu:0");
  b.set_producer("mote tools test");
  b.set_metadata("purpose", "tools test");
  return b.save(dir + "/relu.mote");
}

mote::Status write_dynamic(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {-1, 4});
  b.mark_output(b.add_op(mote::fb::OpType::Relu, {x})[0], "y");
  return b.save(dir + "/dynamic.mote");
}

mote::Status write_weights(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {2, 3});
  b.mark_output(b.add_op(mote::fb::OpType::Relu, {x})[0], "y");
  std::vector<float> values(16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  b.mark_output(b.add_constant("w", mote::Tensor::from_vector<float>({4, 4}, values)));
  return b.save(dir + "/weights.mote");
}

mote::Status write_matmul(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {128, 32});
  std::vector<float> values(32 * 48);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
  int w = b.add_constant("w", mote::Tensor::from_vector<float>({32, 48}, values));
  b.mark_output(b.add_op(mote::fb::OpType::MatMul, {x, w})[0], "y");
  return b.save(dir + "/matmul.mote");
}

mote::Status write_overflow(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {64, 64});
  int up = b.add_op(mote::fb::OpType::Mul, {x, b.add_constant("big", mote::Tensor::from_vector<float>({1}, {1e5f}))},
                    1, "scale_up")[0];
  int down =
      b.add_op(mote::fb::OpType::Mul, {up, b.add_constant("small", mote::Tensor::from_vector<float>({1}, {1e-5f}))},
               1, "scale_down")[0];
  b.mark_output(b.add_op(mote::fb::OpType::Relu, {down}, 1, "relu")[0], "y");
  return b.save(dir + "/overflow.mote");
}

mote::Status write_newer(const std::string& dir) {
  mote::GraphBuilder b;
  int x = b.add_input("x", mote::DType::F32, {2, 3});
  b.mark_output(b.add_op(static_cast<mote::fb::OpType>(4000), {x}, 1, "from_the_future")[0], "y");
  return b.save(dir + "/newer.mote");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  for (auto* write : {write_relu, write_dynamic, write_weights, write_matmul, write_overflow, write_newer}) {
    mote::Status st = write(argv[1]);
    if (!st.ok()) {
      std::fprintf(stderr, "make_test_models: %s\n", st.to_string().c_str());
      return 1;
    }
  }
  return 0;
}
