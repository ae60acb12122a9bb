#include "tests/train/torch_parity/parity_models.hpp"

#include <algorithm>
#include <map>

#include "mote/graph_builder.hpp"
#include "sdk/tools/common/npy.hpp"

namespace mote::test {

namespace {

struct Builder {
  GraphBuilder b;
  std::map<std::string, Tensor> init;
  std::vector<std::string> params;

  int param(const std::string& name) {
    params.push_back(name);
    return b.add_constant(name, init.at(name));
  }

  // torch's Linear: y = x W^T + b with W [out, in], so Gemm with trans_b
  // reads the weight as torch stores it.
  int linear(int x, const std::string& prefix) {
    fb::GemmAttrsT gemm;
    gemm.trans_b = true;
    return b.add_op(fb::OpType::Gemm, {x, param(prefix + ".weight"), param(prefix + ".bias")}, gemm)[0];
  }

  int conv3x3(int x, const std::string& prefix, int64_t pad) {
    fb::ConvAttrsT conv;
    conv.kernel_shape = {3, 3};
    conv.pads = {pad, pad, pad, pad};
    return b.add_op(fb::OpType::Conv, {x, param(prefix + ".weight"), param(prefix + ".bias")}, conv)[0];
  }

  int relu(int x) { return b.add_op(fb::OpType::Relu, {x})[0]; }
};

// Linear(20,32)-ReLU-Linear(32,5).
void mlp(Builder& m, int x) { m.b.mark_output(m.linear(m.relu(m.linear(x, "fc1")), "fc2"), "logits"); }

// Conv(1,4,3,pad 1)-ReLU-MaxPool(2)-Conv(4,8,3)-ReLU-GlobalAveragePool-Flatten-Linear(8,5).
void cnn(Builder& m, int x) {
  fb::PoolAttrsT pool;
  pool.kernel_shape = {2, 2};
  pool.strides = {2, 2};
  int h = m.b.add_op(fb::OpType::MaxPool, {m.relu(m.conv3x3(x, "conv1", 1))}, pool)[0];
  h = m.b.add_op(fb::OpType::GlobalAveragePool, {m.relu(m.conv3x3(h, "conv2", 0))})[0];
  h = m.b.add_op(fb::OpType::Flatten, {h})[0];
  m.b.mark_output(m.linear(h, "fc"), "logits");
}

Result<Tensor> read_array(const std::string& dir, const std::string& file, DType dtype) {
  MOTE_ASSIGN_OR_RETURN(Tensor t, tools::read_npy(dir + "/" + file));
  if (t.dtype() != dtype) return invalid_argument(dir + "/" + file + ": unexpected dtype");
  return t;
}

}  // namespace

Result<ParityCase> load_parity_case(const std::string& dir, const std::string& model_name) {
  static const std::map<std::string, std::vector<std::string>> kParams = {
      {"mlp", {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}},
      {"cnn", {"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc.weight", "fc.bias"}},
  };
  auto names = kParams.find(model_name);
  if (names == kParams.end()) return invalid_argument("no parity model '" + model_name + "'");
  ParityCase c;
  MOTE_ASSIGN_OR_RETURN(c.x, read_array(dir, "x.npy", DType::F32));
  MOTE_ASSIGN_OR_RETURN(c.labels, read_array(dir, "labels.npy", DType::I64));
  Builder m;
  for (const std::string& name : names->second) {
    MOTE_ASSIGN_OR_RETURN(m.init[name], read_array(dir, "init." + name + ".npy", DType::F32));
  }
  int x = m.b.add_input("x", DType::F32, c.x.shape());
  if (model_name == "mlp") {
    mlp(m, x);
  } else {
    cnn(m, x);
  }
  c.params = m.params;

  // Model::from_buffer borrows the bytes: a 64-byte aligned u8 Tensor that
  // the case keeps alive as long as the model.
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, m.b.serialize());
  c.bytes = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes.size())});
  std::copy(bytes.begin(), bytes.end(), c.bytes.data<uint8_t>());
  MOTE_ASSIGN_OR_RETURN(c.model, Model::from_buffer(c.bytes.raw(), c.bytes.bytes(), model_name + ".mote"));
  return c;
}

}  // namespace mote::test
