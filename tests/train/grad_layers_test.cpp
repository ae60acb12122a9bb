// Gradients of convolution, normalisation, pooling and data-movement ops against central
// finite differences (grad_check.hpp: scalar, step and tolerances).
#include <gtest/gtest.h>

#include "runtime/train/autodiff.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/train/grad_check.hpp"

namespace mote::test {
namespace {

Tensor rnd(Shape shape, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  return random_tensor(DType::F32, std::move(shape), seed, lo, hi);
}

// Conv or ConvTranspose of x with weights w (and a bias of the output
// channels: w[0] for Conv, w[1] * group for ConvTranspose).
GradCase conv_like_case(fb::OpType type, Shape x, Shape w, fb::ConvAttrsT a, bool bias, uint32_t seed) {
  GradCase c;
  c.inputs = {{"x", rnd(x, seed)}, {"w", rnd(w, seed + 1)}};
  const int64_t out_channels = type == fb::OpType::Conv ? w[0] : w[1] * a.group;
  if (bias) c.inputs.push_back({"b", rnd({out_channels}, seed + 2)});
  c.forward = [type, a](TrainGraph& g, const std::vector<int>& in) { return g.op1(type, in, a); };
  return c;
}

GradCase conv_case(Shape x, Shape w, fb::ConvAttrsT a, bool bias, uint32_t seed) {
  return conv_like_case(fb::OpType::Conv, std::move(x), std::move(w), std::move(a), bias, seed);
}

GradCase conv_transpose_case(Shape x, Shape w, fb::ConvAttrsT a, bool bias, uint32_t seed) {
  return conv_like_case(fb::OpType::ConvTranspose, std::move(x), std::move(w), std::move(a), bias, seed);
}

TEST(GradConv, Conv2dStridesPadsDilations) {
  fb::ConvAttrsT plain;
  check_gradients(conv_case({2, 3, 5, 5}, {4, 3, 3, 3}, plain, true, 1), "Conv 3x3");
  fb::ConvAttrsT strided;
  strided.strides = {2, 2};
  strided.pads = {1, 0, 1, 1};
  // 6 + 1 + 1 - 3 = 5 is odd: a strided conv leaves the last row unread.
  check_gradients(conv_case({1, 2, 6, 7}, {3, 2, 3, 3}, strided, true, 4), "Conv stride 2, uneven pads");
  fb::ConvAttrsT dilated;
  dilated.dilations = {2, 1};
  dilated.auto_pad = fb::AutoPad::SameUpper;
  check_gradients(conv_case({1, 2, 6, 5}, {2, 2, 3, 2}, dilated, false, 7), "Conv dilation 2, SAME_UPPER");
}

TEST(GradConv, GroupedDepthwiseAnd1d) {
  fb::ConvAttrsT grouped;
  grouped.group = 2;
  check_gradients(conv_case({2, 4, 5, 5}, {6, 2, 3, 3}, grouped, true, 10), "Conv group 2");
  fb::ConvAttrsT depthwise;
  depthwise.group = 3;
  depthwise.pads = {1, 1, 1, 1};
  depthwise.strides = {2, 2};
  check_gradients(conv_case({1, 3, 5, 6}, {3, 1, 3, 3}, depthwise, true, 13), "Conv depthwise");
  fb::ConvAttrsT one_d;
  one_d.pads = {2, 1};
  check_gradients(conv_case({2, 2, 9}, {3, 2, 4}, one_d, true, 16), "Conv 1-D");
}

TEST(GradConvTranspose, StridesPadsOutputPadding) {
  fb::ConvAttrsT plain;
  check_gradients(conv_transpose_case({2, 3, 4, 4}, {3, 2, 3, 3}, plain, true, 60), "ConvTranspose 3x3");
  fb::ConvAttrsT strided;
  strided.strides = {2, 2};
  strided.pads = {1, 0, 1, 1};
  strided.output_padding = {1, 0};
  check_gradients(conv_transpose_case({1, 2, 3, 4}, {2, 3, 3, 3}, strided, true, 63),
                  "ConvTranspose stride 2, uneven pads, output_padding");
  fb::ConvAttrsT same;
  same.strides = {2, 2};
  same.auto_pad = fb::AutoPad::SameUpper;
  check_gradients(conv_transpose_case({1, 2, 3, 3}, {2, 2, 2, 3}, same, false, 66), "ConvTranspose SAME_UPPER stride 2");
}

TEST(GradConvTranspose, GroupedDilatedAnd1d) {
  fb::ConvAttrsT grouped;
  grouped.group = 2;
  grouped.strides = {2, 1};
  grouped.dilations = {1, 2};
  grouped.pads = {0, 1, 1, 0};
  check_gradients(conv_transpose_case({1, 4, 3, 3}, {4, 3, 2, 2}, grouped, true, 70),
                  "ConvTranspose group 2, stride, dilation");
  fb::ConvAttrsT depthwise;
  depthwise.group = 3;
  depthwise.strides = {2, 2};
  depthwise.pads = {1, 1, 1, 1};
  depthwise.output_padding = {1, 1};
  check_gradients(conv_transpose_case({2, 3, 3, 3}, {3, 1, 3, 3}, depthwise, true, 73), "ConvTranspose depthwise");
  fb::ConvAttrsT one_d;
  one_d.strides = {3};
  one_d.pads = {1, 2};
  one_d.output_padding = {2};
  check_gradients(conv_transpose_case({2, 2, 5}, {2, 3, 3}, one_d, true, 76), "ConvTranspose 1-D stride 3");
}

GradCase layer_norm_case(Shape x, Shape scale, bool bias, int64_t axis, float epsilon, uint32_t seed) {
  GradCase c;
  c.inputs = {{"x", rnd(x, seed, -2, 2)}, {"scale", rnd(scale, seed + 1, 0.5, 1.5)}};
  if (bias) c.inputs.push_back({"b", rnd(scale, seed + 2)});
  fb::NormAttrsT a;
  a.axis = axis;
  a.epsilon = epsilon;
  c.forward = [a](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::LayerNormalization, in, a);
  };
  return c;
}

TEST(GradNormalization, LayerNormalizationAnyAxis) {
  check_gradients(layer_norm_case({3, 5}, {5}, true, -1, 1e-5f, 80), "LayerNorm [3,5] axis -1");
  check_gradients(layer_norm_case({2, 3, 4}, {3, 4}, true, 1, 1e-5f, 83), "LayerNorm [2,3,4] axis 1");
  // Scale broadcast over the normalised dims; a large epsilon matters.
  check_gradients(layer_norm_case({2, 3, 4}, {4}, true, 0, 0.5f, 86), "LayerNorm axis 0, scale [4], epsilon 0.5");
  check_gradients(layer_norm_case({4, 2, 3}, {2, 1}, false, -2, 1e-3f, 89), "LayerNorm axis -2, no B");
}

TEST(GradNormalization, LayerNormStatisticsOutputs) {
  // Mean and InvStdDev declared but unused: their zero gradients are fine,
  // even when too large to fold (here 300 * 256 > 2^16 statistics).
  for (bool read_mean : {false, true}) {
    TrainGraph g;
    int x = g.input("x", DType::F32, {300, 256, 2});
    int scale = g.input("scale", DType::F32, {2});
    fb::OpT like;
    fb::NormAttrsT a;
    a.axis = -1;
    like.nn.Set(a);
    std::vector<int> outs = g.op(fb::OpType::LayerNormalization, {x, scale}, 3, &like);
    int y = g.op1(fb::OpType::ReduceSum, {outs[0]});
    // Reading Mean as well: a gradient the builder does not propagate must be an error, not a wrong result.
    int loss = read_mean ? g.add(y, g.op1(fb::OpType::ReduceSum, {outs[1]})) : y;
    ASSERT_TRUE(g.status().ok()) << g.status().to_string();
    auto grads = build_gradients(g, loss, {x, scale});
    EXPECT_EQ(grads.ok(), !read_mean) << grads.status().to_string();
    if (read_mean) EXPECT_NE(grads.status().message().find("Mean and InvStdDev"), std::string::npos);
  }
}

GradCase batch_norm_case(Shape x, bool training, float epsilon, uint32_t seed) {
  const Shape c_shape = {x[1]};
  GradCase c;
  c.inputs = {{"x", rnd(x, seed, -2, 2)},
              {"scale", rnd(c_shape, seed + 1, 0.5, 1.5)},
              {"b", rnd(c_shape, seed + 2)},
              {"mean", rnd(c_shape, seed + 3)},
              {"var", rnd(c_shape, seed + 4, 0.5, 1.5)}};
  fb::NormAttrsT a;
  a.epsilon = epsilon;
  a.training_mode = training;
  a.momentum = 0.8f;
  c.forward = [a](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::BatchNormalization, in, a);
  };
  return c;
}

TEST(GradNormalization, BatchNormalizationTrainingMode) {
  // Batch statistics: dX goes through the mean and variance over N and space.
  // input_mean/var do not reach Y in training mode (their gradient is zero,
  // which finite differences check too).
  check_gradients(batch_norm_case({4, 3}, true, 1e-5f, 90), "BatchNorm training [4,3]");
  check_gradients(batch_norm_case({2, 3, 2, 3}, true, 1e-5f, 95), "BatchNorm training [2,3,2,3]");
  check_gradients(batch_norm_case({3, 2, 4}, true, 0.3f, 100), "BatchNorm training [3,2,4], epsilon 0.3");
}

TEST(GradNormalization, BatchNormalizationInferenceMode) {
  check_gradients(batch_norm_case({2, 3, 2, 2}, false, 1e-5f, 105), "BatchNorm inference [2,3,2,2]");
  check_gradients(batch_norm_case({3, 4}, false, 0.1f, 110), "BatchNorm inference [3,4], epsilon 0.1");
}

TEST(GradPool, MaxAndAverage) {
  fb::PoolAttrsT a;
  a.kernel_shape = {2, 2};
  a.strides = {2, 2};
  // Distinct values well apart, so the max of a window cannot change under a
  // step of eps.
  Tensor x = Tensor::zeros(DType::F32, {1, 2, 4, 4});
  for (int i = 0; i < 32; ++i) x.data<float>()[i] = static_cast<float>((i * 7) % 32) * 0.1f - 1.5f;
  GradCase max;
  max.inputs = {{"x", x}};
  max.forward = [a](TrainGraph& g, const std::vector<int>& in) { return g.op1(fb::OpType::MaxPool, in, a); };
  check_gradients(max, "MaxPool 2x2 s2");
  fb::PoolAttrsT overlap;
  overlap.kernel_shape = {3, 3};
  overlap.pads = {1, 1, 1, 1};
  GradCase max_overlap = max;
  max_overlap.forward = [overlap](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::MaxPool, in, overlap);
  };
  check_gradients(max_overlap, "MaxPool 3x3 overlapping, padded");
  for (bool include_pad : {false, true}) {
    fb::PoolAttrsT avg = overlap;
    avg.strides = {2, 1};
    avg.count_include_pad = include_pad;
    GradCase c;
    c.inputs = {{"x", rnd({2, 2, 5, 4}, 20)}};
    c.forward = [avg](TrainGraph& g, const std::vector<int>& in) { return g.op1(fb::OpType::AveragePool, in, avg); };
    check_gradients(c, "AveragePool count_include_pad " + std::to_string(include_pad));
  }
  GradCase global;
  global.inputs = {{"x", rnd({2, 3, 4, 5}, 21)}};
  global.forward = [](TrainGraph& g, const std::vector<int>& in) { return g.op1(fb::OpType::GlobalAveragePool, in); };
  check_gradients(global, "GlobalAveragePool");
}

TEST(GradDataMovement, ConcatSliceSplit) {
  GradCase concat;
  concat.inputs = {{"a", rnd({2, 3, 2}, 30)}, {"b", rnd({2, 1, 2}, 31)}, {"c", rnd({2, 4, 2}, 32)}};
  concat.forward = [](TrainGraph& g, const std::vector<int>& in) {
    fb::AxisAttrsT a;
    a.axis = -2;
    return g.op1(fb::OpType::Concat, in, a);
  };
  check_gradients(concat, "Concat axis -2");
  GradCase slice;
  slice.inputs = {{"x", rnd({4, 5, 3}, 33)}};
  slice.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::Slice, {in[0], g.i64s({1, -4}), g.i64s({100, 3}), g.i64s({0, 1})});
  };
  check_gradients(slice, "Slice");
  GradCase split;
  split.inputs = {{"x", rnd({3, 6}, 34)}};
  split.forward = [](TrainGraph& g, const std::vector<int>& in) {
    fb::SplitAttrsT a;
    a.axis = 1;
    fb::OpT like;
    like.tensor.Set(a);
    std::vector<int> parts = g.op(fb::OpType::Split, {in[0], g.i64s({2, 4})}, 2, &like);
    // Only the second part reaches the loss: the first gets a zero gradient.
    return g.mul(parts[1], parts[1]);
  };
  check_gradients(split, "Split, one output used");
}

TEST(GradDataMovement, PadAndGather) {
  GradCase pad;
  pad.inputs = {{"x", rnd({2, 3, 4}, 40)}};
  pad.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::Pad, {in[0], g.i64s({0, 1, -1, 1, 2, 2})});
  };
  check_gradients(pad, "Pad with a crop");
  GradCase gather;
  gather.inputs = {{"table", rnd({5, 3}, 41)}, {"idx", Tensor::from_vector<int64_t>({2, 3}, {0, 4, -1, 2, 2, 1})}};
  gather.forward = [](TrainGraph& g, const std::vector<int>& in) { return g.op1(fb::OpType::Gather, in); };
  check_gradients(gather, "Gather axis 0, repeated and negative indices");
}

TEST(GradGraph, SmallCnn) {
  // Conv -> Relu-free path (Tanh) -> MaxPool -> Flatten -> Gemm.
  GradCase c;
  Tensor x = rnd({2, 1, 6, 6}, 50);
  c.inputs = {{"x", x}, {"w", rnd({2, 1, 3, 3}, 51)}, {"fc", rnd({8, 3}, 52)}};
  c.constant_inputs = {"x"};
  c.forward = [](TrainGraph& g, const std::vector<int>& in) {
    fb::ConvAttrsT conv;
    conv.pads = {1, 1, 1, 1};
    fb::PoolAttrsT pool;
    pool.kernel_shape = {3, 3};
    pool.strides = {3, 3};
    int h = g.op1(fb::OpType::Tanh, {g.op1(fb::OpType::Conv, {in[0], in[1]}, conv)});
    int p = g.op1(fb::OpType::AveragePool, {h}, pool);
    return g.op1(fb::OpType::Gemm, {g.op1(fb::OpType::Flatten, {p}), in[2]});
  };
  check_gradients(c, "CNN");
}

}  // namespace
}  // namespace mote::test
