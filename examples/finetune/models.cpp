#include "examples/finetune/models.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "mote/mote.hpp"

namespace finetune {
namespace {

using mote::fb::OpType;

// Normal with variance 2 / fan_in (He), right for layers followed by Relu.
mote::Tensor he_init(const mote::Shape& shape, int64_t fan_in, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / static_cast<float>(fan_in)));
  mote::Tensor t = mote::Tensor::zeros(mote::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
  return t;
}

class NetBuilder {
 public:
  explicit NetBuilder(uint32_t seed) : rng_(seed) {}
  mote::GraphBuilder& b() { return b_; }

  // Conv k x k, 'same' padding, + bias, + Relu.
  int conv_relu(int x, int64_t in_channels, int64_t out_channels, int64_t k, const std::string& name) {
    int w = b_.add_constant(name + ".weight", he_init({out_channels, in_channels, k, k}, in_channels * k * k, rng_));
    int bias = b_.add_constant(name + ".bias", mote::Tensor::zeros(mote::DType::F32, {out_channels}));
    mote::fb::ConvAttrsT attrs;
    attrs.kernel_shape = {k, k};
    attrs.pads = {k / 2, k / 2, k / 2, k / 2};
    int y = b_.add_op(OpType::Conv, {x, w, bias}, attrs)[0];
    return b_.add_op(OpType::Relu, {y})[0];
  }

  int max_pool2(int x) {
    mote::fb::PoolAttrsT attrs;
    attrs.kernel_shape = {2, 2};
    attrs.strides = {2, 2};
    return b_.add_op(OpType::MaxPool, {x}, attrs)[0];
  }

  // x [N, in] -> x W + b, W [in, out].
  int dense(int x, int64_t in, int64_t out, const std::string& name, bool relu) {
    int w = b_.add_constant(name + ".weight", he_init({in, out}, in, rng_));
    int bias = b_.add_constant(name + ".bias", mote::Tensor::zeros(mote::DType::F32, {out}));
    int y = b_.add_op(OpType::Gemm, {x, w, bias}, mote::fb::GemmAttrsT{})[0];
    return relu ? b_.add_op(OpType::Relu, {y})[0] : y;
  }

  mote::Status save(int logits, const std::string& path) {
    b_.mark_output(logits, "logits");
    b_.set_producer("mote finetune example");
    return b_.save(path);
  }

 private:
  mote::GraphBuilder b_;
  std::mt19937 rng_;
};

// Two conv + pool stages, then a hidden dense layer and the classifier.
mote::Status save_cnn(const std::string& path, int64_t side, int64_t hidden) {
  NetBuilder n(2);
  int x = n.b().add_input("pixels", mote::DType::F32, {-1, 1, side, side});
  int h = n.max_pool2(n.conv_relu(x, 1, 16, 3, "conv1"));
  h = n.max_pool2(n.conv_relu(h, 16, 32, 3, "conv2"));
  h = n.b().add_op(OpType::Flatten, {h})[0];
  n.b().set_tensor_name(h, "features");
  const int64_t features = 32 * (side / 4) * (side / 4);
  h = n.dense(h, features, hidden, "fc1", /*relu=*/true);
  return n.save(n.dense(h, hidden, 10, "fc2", /*relu=*/false), path);
}

}  // namespace

mote::Status save_digits_mlp(const std::string& path) {
  NetBuilder n(1);
  int x = n.b().add_input("pixels", mote::DType::F32, {-1, 64});
  int h = n.dense(x, 64, 64, "fc1", /*relu=*/true);
  return n.save(n.dense(h, 64, 10, "fc2", /*relu=*/false), path);
}

mote::Status save_digits_cnn(const std::string& path) { return save_cnn(path, 8, 64); }
mote::Status save_fashion_cnn(const std::string& path) { return save_cnn(path, 28, 128); }

}  // namespace finetune
