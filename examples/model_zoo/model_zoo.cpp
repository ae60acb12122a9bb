#include "model_zoo.hpp"

#include <cmath>
#include <random>

namespace mote::zoo {
namespace {

// Appends layers to a GraphBuilder with the bookkeeping (weights, names) done.
class NetBuilder {
 public:
  explicit NetBuilder(uint32_t seed) : rng_(seed) {}
  GraphBuilder& graph() { return b_; }

  // Conv with bias (batch norm already folded, as the converter does) and an
  // optional fused activation.
  int conv(int x, int64_t in_ch, int64_t out_ch, int64_t k, int64_t stride, int64_t group,
           fb::ActivationKind act, const std::string& name) {
    int64_t fan_in = in_ch / group * k * k;
    int w = b_.add_constant(name + ".weight", random_normal({out_ch, in_ch / group, k, k}, std::sqrt(2.0 / fan_in)));
    int bias = b_.add_constant(name + ".bias", random_normal({out_ch}, 0.01));
    fb::ConvAttrsT a;
    a.kernel_shape = {k, k};
    a.strides = {stride, stride};
    a.pads = {k / 2, k / 2, k / 2, k / 2};
    a.group = group;
    int y = b_.add_op(fb::OpType::Conv, {x, w, bias}, a, 1, name)[0];
    fuse(act);
    return y;
  }

  int add(int a, int b, fb::ActivationKind act, const std::string& name) {
    int y = b_.add_op(fb::OpType::Add, {a, b}, 1, name)[0];
    if (act == fb::ActivationKind::Relu) return b_.add_op(fb::OpType::Relu, {y}, 1, name + ".relu")[0];
    return y;
  }

  int max_pool(int x, int64_t k, int64_t stride, int64_t pad, const std::string& name) {
    fb::PoolAttrsT a;
    a.kernel_shape = {k, k};
    a.strides = {stride, stride};
    a.pads = {pad, pad, pad, pad};
    return b_.add_op(fb::OpType::MaxPool, {x}, a, 1, name)[0];
  }

  // GlobalAveragePool -> Flatten -> Gemm: the classifier head.
  int classifier(int x, int64_t in_features, int64_t classes) {
    int pooled = b_.add_op(fb::OpType::GlobalAveragePool, {x}, 1, "pool")[0];
    fb::AxisAttrsT flat;
    flat.axis = 1;
    int flat_out = b_.add_op(fb::OpType::Flatten, {pooled}, flat, 1, "flatten")[0];
    int w = b_.add_constant("fc.weight", random_normal({classes, in_features}, std::sqrt(1.0 / in_features)));
    int bias = b_.add_constant("fc.bias", random_normal({classes}, 0.01));
    fb::GemmAttrsT g;
    g.trans_b = true;
    return b_.add_op(fb::OpType::Gemm, {flat_out, w, bias}, g, 1, "fc")[0];
  }

 private:
  void fuse(fb::ActivationKind act) {
    if (act == fb::ActivationKind::None) return;
    auto f = std::make_unique<fb::FusedActivationT>();
    f->kind = act;
    if (act == fb::ActivationKind::Clip) {  // ReLU6
      f->min = 0.0f;
      f->max = 6.0f;
    }
    b_.last_op().fused = std::move(f);
  }

  Tensor random_normal(Shape shape, double stddev) {
    Tensor t = Tensor::zeros(DType::F32, std::move(shape));
    std::normal_distribution<float> dist(0.0f, static_cast<float>(stddev));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng_);
    return t;
  }

  GraphBuilder b_;
  std::mt19937 rng_;
};

constexpr auto kNone = fb::ActivationKind::None;
constexpr auto kRelu = fb::ActivationKind::Relu;
constexpr auto kRelu6 = fb::ActivationKind::Clip;

int basic_block(NetBuilder& n, int x, int64_t in_ch, int64_t out_ch, int64_t stride, const std::string& name) {
  int y = n.conv(x, in_ch, out_ch, 3, stride, 1, kRelu, name + ".conv1");
  y = n.conv(y, out_ch, out_ch, 3, 1, 1, kNone, name + ".conv2");
  int shortcut = x;
  if (stride != 1 || in_ch != out_ch) shortcut = n.conv(x, in_ch, out_ch, 1, stride, 1, kNone, name + ".downsample");
  return n.add(y, shortcut, kRelu, name + ".add");
}

int inverted_residual(NetBuilder& n, int x, int64_t in_ch, int64_t out_ch, int64_t stride, int64_t expand,
                      const std::string& name) {
  int64_t hidden = in_ch * expand;
  int y = x;
  if (expand != 1) y = n.conv(y, in_ch, hidden, 1, 1, 1, kRelu6, name + ".expand");
  y = n.conv(y, hidden, hidden, 3, stride, hidden, kRelu6, name + ".depthwise");
  y = n.conv(y, hidden, out_ch, 1, 1, 1, kNone, name + ".project");
  if (stride == 1 && in_ch == out_ch) y = n.add(y, x, kNone, name + ".add");
  return y;
}

}  // namespace

GraphBuilder resnet18(int batch) {
  NetBuilder n(18);
  int x = n.graph().add_input("input", DType::F32, {batch, 3, 224, 224});
  int y = n.conv(x, 3, 64, 7, 2, 1, kRelu, "conv1");
  y = n.max_pool(y, 3, 2, 1, "maxpool");
  int64_t ch = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < 2; ++block) {
      int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      y = basic_block(n, y, ch, widths[stage], stride, name);
      ch = widths[stage];
    }
  }
  n.graph().mark_output(n.classifier(y, 512, 1000), "logits");
  n.graph().set_metadata("description", "ResNet-18 shaped network, random weights");
  return std::move(n.graph());
}

GraphBuilder mobilenet_v2(int batch) {
  NetBuilder n(2);
  int x = n.graph().add_input("input", DType::F32, {batch, 3, 224, 224});
  int y = n.conv(x, 3, 32, 3, 2, 1, kRelu6, "stem");
  // (expansion, output channels, repeats, first stride) per stage.
  const int64_t config[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2},  {6, 64, 4, 2},
                               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t ch = 32;
  int index = 0;
  for (const auto& c : config) {
    for (int64_t r = 0; r < c[2]; ++r) {
      y = inverted_residual(n, y, ch, c[1], r == 0 ? c[3] : 1, c[0], "block" + std::to_string(index++));
      ch = c[1];
    }
  }
  y = n.conv(y, ch, 1280, 1, 1, 1, kRelu6, "head");
  n.graph().mark_output(n.classifier(y, 1280, 1000), "logits");
  n.graph().set_metadata("description", "MobileNetV2 shaped network, random weights");
  return std::move(n.graph());
}

GraphBuilder small_cnn(int batch) {
  NetBuilder n(28);
  int x = n.graph().add_input("image", DType::F32, {batch, 1, 28, 28});
  int y = n.conv(x, 1, 16, 3, 1, 1, kRelu, "conv1");
  y = n.max_pool(y, 2, 2, 0, "pool1");
  y = n.conv(y, 16, 32, 3, 1, 1, kRelu, "conv2");
  y = n.max_pool(y, 2, 2, 0, "pool2");
  n.graph().mark_output(n.classifier(y, 32, 10), "logits");
  n.graph().set_metadata("labels", "0,1,2,3,4,5,6,7,8,9");
  n.graph().set_metadata("description", "small CNN for 28x28 digits, random weights");
  return std::move(n.graph());
}

const std::vector<ZooModel>& all_models() {
  static const std::vector<ZooModel> models = {
      {"small_cnn", "small CNN, 1x1x28x28 -> 10", &small_cnn},
      {"mobilenet_v2", "MobileNetV2 shape, 1x3x224x224 -> 1000", &mobilenet_v2},
      {"resnet18", "ResNet-18 shape, 1x3x224x224 -> 1000", &resnet18},
  };
  return models;
}

}  // namespace mote::zoo
