// --quantize int8: which ops become QLinearConv, where QuantizeLinear and
// DequantizeLinear go, and how far the int8 graph's outputs are from the
// float graph's on inputs that were not part of the calibration.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "converters/common/npy.hpp"
#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

namespace fs = std::filesystem;

Options quantized() {
  Options o;
  o.quantize = QuantizeRequest{};
  o.quantize->calibrate = "random";
  return o;
}

// x -> Conv -> Relu -> Conv -> Relu -> MaxPool -> y, with a second output
// read straight from the first Conv when `tap` is set.
OnnxBuilder conv_chain(bool tap) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w1", random_f32({8, 3, 3, 3}, 1)).initializer("b1", random_f32({8}, 2));
  b.initializer("w2", random_f32({6, 8, 3, 3}, 3, -0.3f, 0.3f)).initializer("b2", random_f32({6}, 4));
  set_attr(b.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"h"});
  set_attr(b.node("Conv", {"h", "w2", "b2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c2"}, {"r2"});
  set_attr(b.node("MaxPool", {"r2"}, {"y"}), "kernel_shape", std::vector<int64_t>{2, 2});
  if (tap) b.output("h");
  return b;
}

// The dtype each MaxPool of the converted model reads, in op order.
std::vector<DType> max_pool_input_dtypes(const Converted& c) {
  const fb::GraphT& g = c.model->graph();
  std::vector<DType> dtypes;
  for (const auto& op : g.ops) {
    if (op->type == fb::OpType::MaxPool) dtypes.push_back(g.tensors[static_cast<size_t>(op->inputs[0])]->dtype);
  }
  return dtypes;
}

double max_abs(const Tensor& t) {
  double m = 0;
  for (double v : t.to_doubles()) m = std::max(m, std::fabs(v));
  return m;
}

// The int8 graph against the float one on fresh inputs, on the reference
// and CPU backends: within `fraction` of the float output's largest value.
void expect_close_to_float(OnnxBuilder& b, const Converted& q, double fraction, const Shape& input = {1, 3, 12, 12}) {
  Converted f = convert(b);
  ASSERT_TRUE(f.model && q.model);
  for (uint32_t seed : {101u, 202u, 303u}) {
    const std::vector<Tensor> inputs = {random_f32(input, seed)};
    const std::vector<Tensor> want = f.run(inputs);
    for (Backend backend : {Backend::kReference, Backend::kCpu}) {
      const std::vector<Tensor> got = q.run(inputs, backend);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        const std::vector<double> a = got[i].to_doubles(), e = want[i].to_doubles();
        double worst = 0;
        for (size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::fabs(a[k] - e[k]));
        EXPECT_LE(worst, fraction * max_abs(want[i])) << "output " << i << ", seed " << seed;
        EXPECT_GT(worst, 0.0) << "an int8 graph that matches float exactly did not quantise";
      }
    }
  }
}

TEST(QuantizeInt8, ConsecutiveConvsPassUint8) {
  OnnxBuilder b = conv_chain(false);
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 2);
  EXPECT_EQ(c.count(fb::OpType::Conv), 0);
  // One QuantizeLinear for x, one DequantizeLinear for y after the MaxPool:
  // the second Conv reads the first one's uint8 output, the MaxPool the
  // second's.
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
  EXPECT_EQ(c.counter("quantize_int8", "MaxPool or nearest Resize on uint8"), 1);
  EXPECT_EQ(max_pool_input_dtypes(c), std::vector<DType>{DType::U8});
  EXPECT_EQ(c.counter("quantize_int8", "Conv -> QLinearConv"), 2);
  ASSERT_TRUE(c.result.quantize);
  const QuantizeReport& r = *c.result.quantize;
  ASSERT_EQ(r.quantized.size(), 2u);
  for (const QuantizedOutput& o : r.quantized) {
    EXPECT_GT(o.range, 0.0);
    // Rounding to 255 steps: an rms error of a few tenths of a step.
    EXPECT_LT(o.rms_error, o.range / 255.0) << o.tensor;
  }
  EXPECT_TRUE(r.kept_float.empty());
  expect_close_to_float(b, c, 0.05);
}

// A MaxPool whose input is float (a graph input here) stays float, and says
// why; the Conv after it quantises its output.
TEST(QuantizeInt8, MaxPoolOfAFloatInputStaysFloat) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w", random_f32({4, 3, 3, 3}, 1));
  set_attr(b.node("MaxPool", {"x"}, {"p"}), "kernel_shape", std::vector<int64_t>{2, 2});
  b.node("Conv", {"p", "w"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model && c.result.quantize);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 1);
  EXPECT_EQ(c.result.quantize->kept_float.at("MaxPool: input not from an int8 op"), 1);
  EXPECT_EQ(max_pool_input_dtypes(c), std::vector<DType>{DType::F32});
  // Also when a Conv earlier in order has quantised that float input for
  // itself: the pool's reader keeps the exact float values.
  OnnxBuilder both(13);
  both.input("x", DType::F32, {1, 3, 12, 12}).output("y").output("p");
  both.initializer("w", random_f32({4, 3, 3, 3}, 1));
  both.node("Conv", {"x", "w"}, {"y"});
  set_attr(both.node("MaxPool", {"x"}, {"p"}), "kernel_shape", std::vector<int64_t>{2, 2});
  Converted d = convert(both, quantized());
  ASSERT_TRUE(d.model && d.result.quantize);
  EXPECT_EQ(d.count(fb::OpType::QLinearConv), 1);
  EXPECT_EQ(d.result.quantize->kept_float.at("MaxPool: input not from an int8 op"), 1);
  EXPECT_EQ(max_pool_input_dtypes(d), std::vector<DType>{DType::F32});
}

// --weight-bits 7: every QLinearConv's weights within +-63 (what the byte-pair
// kernel of x86 CPUs without VNNI multiplies exactly), reaching it in every
// row, and the outputs still close to float's.
TEST(QuantizeInt8, SevenBitWeightsStayWithinSixtyThree) {
  OnnxBuilder b = conv_chain(false);
  Options o = quantized();
  o.quantize->weight_bits = 7;
  Converted c = convert(b, o);
  ASSERT_TRUE(c.model);
  const fb::GraphT& g = c.model->graph();
  int convs = 0;
  for (const auto& op : g.ops) {
    if (op->type != fb::OpType::QLinearConv) continue;
    ++convs;
    const int w = op->inputs[3];
    const fb::TensorT& t = *g.tensors[static_cast<size_t>(w)];
    ASSERT_EQ(t.dtype, DType::I8);
    const auto* data = static_cast<const int8_t*>(c.model->tensor_data(w));
    ASSERT_NE(data, nullptr);
    const int64_t rows = t.shape[0], per = shape_numel(t.shape) / rows;
    for (int64_t r = 0; r < rows; ++r) {
      int peak = 0;
      for (int64_t k = 0; k < per; ++k) peak = std::max(peak, std::abs(int{data[r * per + k]}));
      EXPECT_EQ(peak, 63) << t.name << " row " << r;
    }
  }
  EXPECT_EQ(convs, 2);
  expect_close_to_float(b, c, 0.05);
  // A depthwise Conv keeps 8 bits (its int8 kernel computes in f32).
  OnnxBuilder dw(13);
  dw.input("x", DType::F32, {1, 4, 8, 8}).output("y");
  dw.initializer("w", random_f32({4, 1, 3, 3}, 5));
  onnx::NodeProto& node = dw.node("Conv", {"x", "w"}, {"y"});
  set_attr(node, "pads", std::vector<int64_t>{1, 1, 1, 1});
  set_attr(node, "group", int64_t{4});
  Converted d = convert(dw, o);
  ASSERT_TRUE(d.model);
  int depthwise = 0;
  for (const auto& op : d.model->graph().ops) {
    if (op->type != fb::OpType::QLinearConv) continue;
    ++depthwise;
    const auto* data = static_cast<const int8_t*>(d.model->tensor_data(op->inputs[3]));
    ASSERT_NE(data, nullptr);
    for (int r = 0; r < 4; ++r) {
      int peak = 0;
      for (int k = 0; k < 9; ++k) peak = std::max(peak, std::abs(int{data[r * 9 + k]}));
      EXPECT_EQ(peak, 127) << "depthwise row " << r;
    }
  }
  EXPECT_EQ(depthwise, 1);
  o.quantize->weight_bits = 6;
  const Status bad = try_convert(b, o);
  EXPECT_NE(bad.message().find("--weight-bits must be 7 or 8, got 6"), std::string::npos) << bad.to_string();
}

TEST(QuantizeInt8, FloatReaderOfAQuantizedOutputGetsItDequantized) {
  OnnxBuilder b = conv_chain(true);
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 2);
  // h is a graph output now: dequantised for it as well as for y after the
  // MaxPool.
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 2);
  EXPECT_EQ(c.model->outputs()[1].name, "h");
  expect_close_to_float(b, c, 0.05);
}

// x -> Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> [Relu] -> y:
// a classifier head, its Gemm with transB as `trans_b`.
OnnxBuilder classifier(bool trans_b, bool relu, int64_t batch = 1) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {batch, 3, 12, 12}).output("y");
  b.initializer("w", random_f32({8, 3, 3, 3}, 1)).initializer("b", random_f32({8}, 2));
  b.initializer("wg", random_f32(trans_b ? Shape{10, 8} : Shape{8, 10}, 3)).initializer("bg", random_f32({10}, 4));
  set_attr(b.node("Conv", {"x", "w", "b"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"h"});
  b.node("GlobalAveragePool", {"h"}, {"p"});
  b.node("Flatten", {"p"}, {"f"});
  set_attr(b.node("Gemm", {"f", "wg", "bg"}, {relu ? "g" : "y"}), "transB", int64_t{trans_b ? 1 : 0});
  if (relu) b.node("Relu", {"g"}, {"y"});
  return b;
}

// A Gemm y = x W^T + c or x W + c runs as a QLinearMatMul with its bias,
// a fused Relu as its clamp; one with alpha other than 1, or a bias per
// row, stays float and says why.
TEST(QuantizeInt8, GemmRunsAsQLinearMatMul) {
  for (bool relu : {false, true}) {
    for (bool trans_b : {true, false}) {
      SCOPED_TRACE(std::string(relu ? "with Relu" : "without Relu") + (trans_b ? ", W^T" : ", W"));
      OnnxBuilder b = classifier(trans_b, relu);
      Converted c = convert(b, quantized());
      ASSERT_TRUE(c.model && c.result.quantize);
      EXPECT_EQ(c.count(fb::OpType::QLinearConv), 1);
      EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 1);
      EXPECT_EQ(c.count(fb::OpType::Gemm), 0);
      EXPECT_EQ(c.count(fb::OpType::Relu), 0);
      EXPECT_EQ(c.count(fb::OpType::Transpose), 0);
      EXPECT_EQ(c.counter("quantize_int8", "Gemm -> QLinearMatMul"), 1);
      EXPECT_EQ(c.counter("quantize_int8", "Conv -> QLinearConv"), 1);
      // The pool between them runs in int8 too: uint8 from the Conv to the Gemm.
      EXPECT_EQ(c.counter("quantize_int8", "GlobalAveragePool -> QLinearGlobalAveragePool"), 1);
      EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
      const QuantizeReport& r = *c.result.quantize;
      ASSERT_EQ(r.quantized.size(), 3u);
      // Reported as the Gemm it stands for.
      EXPECT_EQ(r.quantized[2].op.rfind("Gemm", 0), 0u) << r.quantized[2].op;
      EXPECT_LT(r.quantized[2].rms_error, r.quantized[2].range / 255.0);
      expect_close_to_float(b, c, 0.05);
    }
  }
  // Three images: the report compares each output with its own float value.
  OnnxBuilder batched = classifier(true, true, 3);
  Converted q = convert(batched, quantized());
  Converted f = convert(batched);
  ASSERT_TRUE(q.model && f.model && q.result.quantize);
  const QuantizedOutput& head = q.result.quantize->quantized.back();
  EXPECT_LT(head.rms_error, head.range / 255.0) << head.op;
  const std::vector<Tensor> inputs = {random_f32({3, 3, 12, 12}, 77)};
  const std::vector<double> want = f.run(inputs)[0].to_doubles(), got = q.run(inputs)[0].to_doubles();
  ASSERT_EQ(got.size(), want.size());
  double worst = 0, peak = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::fabs(got[i] - want[i]));
    peak = std::max(peak, std::fabs(want[i]));
  }
  EXPECT_LE(worst, 0.05 * peak);
  OnnxBuilder scaled = classifier(true, false);
  for (auto& node : *scaled.model().mutable_graph()->mutable_node()) {
    if (node.op_type() == "Gemm") set_attr(node, "alpha", 0.5f);
  }
  Converted c = convert(scaled, quantized());
  ASSERT_TRUE(c.model && c.result.quantize);
  EXPECT_EQ(c.count(fb::OpType::Gemm), 1);
  EXPECT_EQ(c.result.quantize->kept_float.at("Gemm: other than x W + c"), 1);
}

// x -> Conv -> Add(., x) -> [Relu] -> y: fuse_residual makes it one Conv
// with a residual input (and the Relu fused after the Add).
OnnxBuilder residual_block(bool relu) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w", random_f32({3, 3, 3, 3}, 1));
  set_attr(b.node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c", "x"}, {relu ? "s" : "y"});
  if (relu) b.node("Relu", {"s"}, {"y"});
  return b;
}

// The residual comes along into the QLinearConv (its inputs 9-11): no Add,
// no Relu and no float tensor between, and x is quantised once for both of
// its readers.
TEST(QuantizeInt8, ResidualAddFusesIntoQLinearConv) {
  for (bool relu : {false, true}) {
    SCOPED_TRACE(relu ? "with Relu" : "without Relu");
    OnnxBuilder b = residual_block(relu);
    Converted c = convert(b, quantized());
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.counter("quantize_int8", "residual Add fused into QLinearConv"), 1);
    EXPECT_EQ(c.count(fb::OpType::QLinearConv), 1);
    EXPECT_EQ(c.count(fb::OpType::Conv), 0);
    EXPECT_EQ(c.count(fb::OpType::Add), 0);
    EXPECT_EQ(c.count(fb::OpType::Relu), 0);
    EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
    EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
    expect_close_to_float(b, c, 0.05);
  }
}

// Two residual blocks in a row, as in ResNet: the second reads the first's
// uint8 output both as its input and as its residual.
TEST(QuantizeInt8, ResidualBlocksPassUint8) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w1", random_f32({3, 3, 3, 3}, 1)).initializer("w2", random_f32({3, 3, 3, 3}, 2));
  set_attr(b.node("Conv", {"x", "w1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c1", "x"}, {"s1"});
  b.node("Relu", {"s1"}, {"h"});
  set_attr(b.node("Conv", {"h", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c2", "h"}, {"s2"});
  b.node("Relu", {"s2"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("quantize_int8", "residual Add fused into QLinearConv"), 2);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 2);
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
  expect_close_to_float(b, c, 0.05);
}

// A residual Conv with an activation QLinearConv cannot fuse (Sigmoid)
// runs in int8 all the same: the activation comes off it as a
// QLinearActivation on its uint8 output (before the ninth session it stayed
// float).
TEST(QuantizeInt8, ResidualConvWithSigmoidRunsInInt8) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w", random_f32({3, 3, 3, 3}, 1));
  set_attr(b.node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c", "x"}, {"s"});
  b.node("Sigmoid", {"s"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("quantize_int8", "activation split off a quantisable op"), 1);
  EXPECT_EQ(c.counter("quantize_int8", "residual Add fused into QLinearConv"), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  EXPECT_EQ(c.count(fb::OpType::Sigmoid), 0);
  expect_close_to_float(b, c, 0.05);
}

// A QDQ model (onnxruntime's quantize_static writes this form): x and y
// through QuantizeLinear / DequantizeLinear, the Conv's weights int8 behind a
// DequantizeLinear with per-channel scales `w_scales`.
// A QDQ Conv with these weight scales (one per output channel); its bias is
// a float constant, or with b_scales an int32 constant dequantised by them
// (per channel when more than one, as a damaged file may have any count).
OnnxBuilder qdq_conv(const std::vector<float>& w_scales, const std::vector<float>& b_scales = {}) {
  const auto channels = static_cast<int64_t>(w_scales.size());
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 8, 8}).output("y");
  std::vector<int8_t> codes(static_cast<size_t>(channels * 3 * 3 * 3));
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  b.initializer("w_q", Tensor::from_vector<int8_t>({channels, 3, 3, 3}, codes));
  b.initializer("w_scale", Tensor::from_vector<float>({channels}, w_scales));
  if (b_scales.empty()) {
    b.initializer("b", random_f32({channels}, 7));
  } else {
    b.initializer("b_q",
                  Tensor::from_vector<int32_t>({channels}, std::vector<int32_t>(static_cast<size_t>(channels), 40)));
    b.initializer("b_scale", Tensor::from_vector<float>({static_cast<int64_t>(b_scales.size())}, b_scales));
    set_attr(b.node("DequantizeLinear", {"b_q", "b_scale"}, {"b"}), "axis", int64_t{0});
  }
  b.initializer("x_scale", Tensor::from_vector<float>({}, {0.02f}));
  b.initializer("x_zero", Tensor::from_vector<uint8_t>({}, {128}));
  b.initializer("y_scale", Tensor::from_vector<float>({}, {0.05f}));
  b.initializer("y_zero", Tensor::from_vector<uint8_t>({}, {128}));
  b.node("QuantizeLinear", {"x", "x_scale", "x_zero"}, {"x_q"});
  b.node("DequantizeLinear", {"x_q", "x_scale", "x_zero"}, {"x_dq"});
  set_attr(b.node("DequantizeLinear", {"w_q", "w_scale"}, {"w"}), "axis", int64_t{0});
  set_attr(b.node("Conv", {"x_dq", "w", "b"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("QuantizeLinear", {"c", "y_scale", "y_zero"}, {"y_q"});
  b.node("DequantizeLinear", {"y_q", "y_scale", "y_zero"}, {"y"});
  return b;
}

// fold_qdq turns the QDQ Conv into QLinearConv, but not with a scale that is
// NaN, infinite or negative (a damaged file: the int32 bias would divide by
// it and convert a NaN to int32); that Conv stays float and the log says why.
TEST(FoldQdq, ConvWithUnusableWeightScalesStaysFloat) {
  OnnxBuilder good = qdq_conv({0.01f, 0.02f});
  Converted folded = convert(good);
  ASSERT_TRUE(folded.model);
  EXPECT_EQ(folded.count(fb::OpType::QLinearConv), 1);
  EXPECT_EQ(folded.counter("fold_qdq", "Conv -> QLinearConv"), 1);
  for (float bad : {std::nanf(""), INFINITY, -0.01f}) {
    OnnxBuilder b = qdq_conv({0.01f, bad});
    Converted c = convert(b);
    ASSERT_TRUE(c.model) << bad;
    EXPECT_EQ(c.count(fb::OpType::QLinearConv), 0) << bad;
    EXPECT_EQ(c.counter("fold_qdq", "Conv left float: weight scales not finite and positive"), 1) << bad;
  }
}

// A weight scale of exactly 0 is a pruned channel (its dequantised weights
// are 0): it folds, with scale 1 and zeroed weights, and the int8 model
// gives the float chain's outputs to within one output quantum (0.05) on
// the reference and CPU backends, also for that channel (the bias alone).
TEST(FoldQdq, PrunedChannelWithZeroScaleFolds) {
  for (const std::vector<float>& scales : {std::vector<float>{0.01f, 0.0f}, std::vector<float>{0.0f}}) {
    OnnxBuilder b = qdq_conv(scales);
    Converted c = convert(b);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.count(fb::OpType::QLinearConv), 1);
    EXPECT_EQ(c.counter("fold_qdq", "Conv -> QLinearConv"), 1);
    for (Backend backend : {Backend::kReference, Backend::kCpu}) {
      expect_same_outputs(b, {random_f32({1, 3, 8, 8}, 77)}, 0.0501, {}, backend);
    }
  }
}

// A dequantised bias folds into the int32 bias when its scales are one per
// output channel; a count that matches nothing (a damaged file; int32_bias
// indexed the scales per channel) keeps the Conv float, and says why.
TEST(FoldQdq, DequantizedBiasNeedsOneScalePerChannel) {
  OnnxBuilder good = qdq_conv({0.01f, 0.02f}, {0.0002f, 0.0004f});
  Converted folded = convert(good);
  ASSERT_TRUE(folded.model);
  EXPECT_EQ(folded.count(fb::OpType::QLinearConv), 1);
  OnnxBuilder bad = qdq_conv({0.01f, 0.02f}, {0.0002f, 0.0004f, 0.0008f});
  Converted c = convert(bad);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 0);
  EXPECT_EQ(c.counter("fold_qdq", "Conv left float: bias scale or zero point not per tensor or per channel"), 1);
}

// A QDQ MatMul (a linear layer of onnxruntime's QDQ transformers): x and y
// through QuantizeLinear / DequantizeLinear, the weights [12, 6] 8-bit
// behind a DequantizeLinear with `w_scales` (one, or along `axis`) and
// zero points (u8 weights: 128 and around it), a Relu before y's
// QuantizeLinear when asked.
OnnxBuilder qdq_matmul(DType w_type, const std::vector<float>& w_scales, int64_t axis = 1, bool relu = false) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 5, 12}).output("y");
  const auto scales = static_cast<int64_t>(w_scales.size());
  std::vector<int8_t> codes(12 * 6);
  std::vector<uint8_t> ucodes(12 * 6);
  for (size_t i = 0; i < codes.size(); ++i) {
    codes[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 255) - 127);
    ucodes[i] = static_cast<uint8_t>(i * 53 % 256);
  }
  std::vector<int8_t> zeros(static_cast<size_t>(scales));
  std::vector<uint8_t> uzeros(static_cast<size_t>(scales));
  for (int64_t i = 0; i < scales; ++i) {
    zeros[static_cast<size_t>(i)] = static_cast<int8_t>(i % 3 - 1);
    uzeros[static_cast<size_t>(i)] = static_cast<uint8_t>(126 + i % 5);
  }
  const Shape w_shape = {12, 6}, param_shape = scales == 1 ? Shape{} : Shape{scales};
  if (w_type == DType::I8) {
    b.initializer("w_q", Tensor::from_vector<int8_t>(w_shape, codes));
    b.initializer("w_zero", Tensor::from_vector<int8_t>(param_shape, zeros));
  } else {
    b.initializer("w_q", Tensor::from_vector<uint8_t>(w_shape, ucodes));
    b.initializer("w_zero", Tensor::from_vector<uint8_t>(param_shape, uzeros));
  }
  b.initializer("w_scale", Tensor::from_vector<float>(param_shape, w_scales));
  b.initializer("x_scale", Tensor::from_vector<float>({}, {0.01f}));
  b.initializer("x_zero", Tensor::from_vector<uint8_t>({}, {128}));
  b.initializer("y_scale", Tensor::from_vector<float>({}, {0.02f}));
  b.initializer("y_zero", Tensor::from_vector<uint8_t>({}, {100}));
  b.node("QuantizeLinear", {"x", "x_scale", "x_zero"}, {"x_q"});
  b.node("DequantizeLinear", {"x_q", "x_scale", "x_zero"}, {"x_dq"});
  set_attr(b.node("DequantizeLinear", {"w_q", "w_scale", "w_zero"}, {"w"}), "axis", axis);
  b.node("MatMul", {"x_dq", "w"}, {relu ? "m" : "c"});
  if (relu) b.node("Relu", {"m"}, {"c"});
  b.node("QuantizeLinear", {"c", "y_scale", "y_zero"}, {"y_q"});
  b.node("DequantizeLinear", {"y_q", "y_scale", "y_zero"}, {"y"});
  return b;
}

// fold_qdq turns a QDQ MatMul into QLinearMatMul: i8 and u8 weights with
// zero points, per tensor and per column, with and without a Relu between;
// the int8 model gives the float chain's outputs (the unoptimised model on
// the reference backend) to within one output quantum (0.02: the chain
// rounds an f32 sum, the kernels an exact one) on the reference and CPU
// backends.
TEST(FoldQdq, MatMulFoldsIntoQLinearMatMul) {
  const std::vector<float> per_column = {0.01f, 0.02f, 0.015f, 0.01f, 0.03f, 0.02f};
  for (DType w_type : {DType::I8, DType::U8}) {
    for (const std::vector<float>& scales : {per_column, std::vector<float>{0.02f}}) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(w_type)) + (scales.size() > 1 ? " per column" : " per tensor") +
                     (relu ? ", Relu" : ""));
        OnnxBuilder b = qdq_matmul(w_type, scales, 1, relu);
        Converted c = convert(b);
        ASSERT_TRUE(c.model);
        EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 1);
        EXPECT_EQ(c.count(fb::OpType::MatMul), 0);
        EXPECT_EQ(c.count(fb::OpType::Relu), 0);
        EXPECT_EQ(c.counter("fold_qdq", "MatMul -> QLinearMatMul"), 1);
        for (Backend backend : {Backend::kReference, Backend::kCpu}) {
          expect_same_outputs(b, {random_f32({2, 5, 12}, 5)}, 0.0201, {}, backend);
        }
      }
    }
  }
}

// A QDQ Gemm (a classifier head): x [3, 12] through Q/DQ, W int8 per output
// behind a DequantizeLinear, stored [6, 12] (transB) or [12, 6], a float
// bias; it folds into a QLinearMatMul with an int32 bias, within one output
// quantum (0.02) of the float chain on the reference and CPU backends.
TEST(FoldQdq, GemmFoldsIntoQLinearMatMulWithBias) {
  for (bool trans_b : {true, false}) {
    SCOPED_TRACE(trans_b ? "W^T" : "W");
    OnnxBuilder b(13);
    b.input("x", DType::F32, {3, 12}).output("y");
    std::vector<int8_t> codes(72);
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
    b.initializer("w_q", Tensor::from_vector<int8_t>(trans_b ? Shape{6, 12} : Shape{12, 6}, codes));
    b.initializer("w_scale", Tensor::from_vector<float>({6}, {0.01f, 0.02f, 0.015f, 0.01f, 0.03f, 0.02f}));
    b.initializer("w_zero", Tensor::from_vector<int8_t>({6}, {0, 0, 0, 0, 0, 0}));
    b.initializer("bias", random_f32({6}, 3));
    b.initializer("x_scale", Tensor::from_vector<float>({}, {0.01f}));
    b.initializer("x_zero", Tensor::from_vector<uint8_t>({}, {128}));
    b.initializer("y_scale", Tensor::from_vector<float>({}, {0.02f}));
    b.initializer("y_zero", Tensor::from_vector<uint8_t>({}, {100}));
    b.node("QuantizeLinear", {"x", "x_scale", "x_zero"}, {"x_q"});
    b.node("DequantizeLinear", {"x_q", "x_scale", "x_zero"}, {"x_dq"});
    set_attr(b.node("DequantizeLinear", {"w_q", "w_scale", "w_zero"}, {"w"}), "axis", int64_t{trans_b ? 0 : 1});
    set_attr(b.node("Gemm", {"x_dq", "w", "bias"}, {"g"}), "transB", int64_t{trans_b ? 1 : 0});
    b.node("QuantizeLinear", {"g", "y_scale", "y_zero"}, {"y_q"});
    b.node("DequantizeLinear", {"y_q", "y_scale", "y_zero"}, {"y"});
    Converted c = convert(b);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.counter("fold_qdq", "Gemm -> QLinearMatMul"), 1);
    EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 1);
    EXPECT_EQ(c.count(fb::OpType::Gemm), 0);
    for (Backend backend : {Backend::kReference, Backend::kCpu}) {
      expect_same_outputs(b, {random_f32({3, 12}, 5)}, 0.0201, {}, backend);
    }
  }
}

// Weights quantised along their rows (axis 0) stay float, and the log says
// why.
TEST(FoldQdq, MatMulWeightsAlongRowsStayFloat) {
  OnnxBuilder b = qdq_matmul(DType::I8, std::vector<float>(12, 0.01f), 0);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 0);
  EXPECT_EQ(c.counter("fold_qdq", "MatMul left float: weight scales or zero points not per column"), 1);
}

// A transformer's MLP on [2, 6, 16] tokens: MatMul -> Relu -> MatMul + bias
// (fuse_matmul_bias makes that a Gemm between Reshapes). Both run as
// QLinearMatMuls, uint8 passing between them (through the Reshape),
// within 5 % of the float graph's outputs.
TEST(QuantizeInt8, LinearLayersRunAsQLinearMatMul) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 6, 16}).output("y");
  b.initializer("w1", random_f32({16, 24}, 1)).initializer("w2", random_f32({24, 8}, 2));
  b.initializer("b2", random_f32({8}, 3));
  b.node("MatMul", {"x", "w1"}, {"h"});
  b.node("Relu", {"h"}, {"r"});
  b.node("MatMul", {"r", "w2"}, {"m"});
  b.node("Add", {"m", "b2"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model && c.result.quantize);
  EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 2);
  EXPECT_EQ(c.count(fb::OpType::MatMul), 0);
  EXPECT_EQ(c.count(fb::OpType::Relu), 0);
  EXPECT_EQ(c.counter("quantize_int8", "MatMul -> QLinearMatMul"), 1);
  EXPECT_EQ(c.counter("quantize_int8", "Gemm -> QLinearMatMul"), 1);
  // One QuantizeLinear (x) and one DequantizeLinear (y): h passes as uint8.
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
  for (const QuantizedOutput& out : c.result.quantize->quantized) {
    EXPECT_LT(out.rms_error, out.range / 255.0) << out.op;
  }
  expect_close_to_float(b, c, 0.05, {2, 6, 16});
}

// A MatMul of two activations (attention's scores) stays float, and says
// why.
TEST(QuantizeInt8, MatMulOfActivationsStaysFloat) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 6, 16}).output("scores");
  b.initializer("w", random_f32({16, 16}, 1));
  b.initializer("swap_shape", Tensor::from_vector<int64_t>({3}, {2, 16, 6}));
  b.node("MatMul", {"x", "w"}, {"q"});
  b.node("Reshape", {"x", "swap_shape"}, {"k"});
  b.node("MatMul", {"q", "k"}, {"scores"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model && c.result.quantize);
  EXPECT_EQ(c.count(fb::OpType::QLinearMatMul), 1);
  EXPECT_EQ(c.count(fb::OpType::MatMul), 1);
  EXPECT_EQ(c.result.quantize->kept_float.at("MatMul: weights not a constant f32 matrix"), 1);
}

TEST(QuantizeInt8, MissingCalibrationFolderIsAnError) {
  OnnxBuilder b = conv_chain(false);
  Options o = quantized();
  o.quantize->calibrate = "/nonexistent-calibration-folder";
  Status st = try_convert(b, o);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("calibration folder '/nonexistent-calibration-folder' does not exist"),
            std::string::npos)
      << st.to_string();
}

// A folder of real samples: too few is refused with the count; enough is
// used (and the samples' names need not mean anything).
TEST(QuantizeInt8, CalibrationFolderNeedsEnoughSamples) {
  const fs::path dir = fs::temp_directory_path() / ("mote-calibration-" + std::to_string(getpid()));
  fs::create_directories(dir);
  OnnxBuilder b = conv_chain(false);
  Options o = quantized();
  o.quantize->calibrate = dir.string();
  for (size_t i = 0; i < kMinCalibrationSamples; ++i) {
    ASSERT_TRUE(write_npy((dir / ("sample" + std::to_string(i) + ".npy")).string(),
                          random_f32({1, 3, 12, 12}, static_cast<uint32_t>(500 + i)))
                    .ok());
    if (i == 2) {
      Status st = try_convert(b, o);
      EXPECT_NE(st.message().find("holds 3 .npy files for input 'x'; at least 16 are needed"), std::string::npos)
          << st.to_string();
    }
  }
  Converted c = convert(b, o);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 2);
  fs::remove_all(dir);
}

// A QDQ graph of the ops around convolutions, each reading dequantised
// 8-bit tensors and writing into a QuantizeLinear, as onnxruntime's
// quantiser writes them: a and b (u8, [1, 4, 6, 6]) -> Add, Mul, Concat,
// AveragePool, GlobalAveragePool, a HardSwish, and a MaxPool whose
// QuantizeLinear has its input's parameters (`pool_scale` for another), each
// a graph output.
OnnxBuilder qdq_elementwise(float pool_scale = 0.02f) {
  OnnxBuilder b(13);
  b.input("a", DType::F32, {1, 4, 6, 6}).input("b", DType::F32, {1, 4, 6, 6});
  for (const char* y : {"sum", "product", "joined", "smooth", "gap", "pooled", "swished"}) b.output(y);
  const auto scalar_f32 = [](float v) { return Tensor::from_vector<float>({}, {v}); };
  const auto scalar_u8 = [](uint8_t v) { return Tensor::from_vector<uint8_t>({}, {v}); };
  b.initializer("a_scale", scalar_f32(0.02f)).initializer("a_zero", scalar_u8(128));
  b.initializer("b_scale", scalar_f32(0.015f)).initializer("b_zero", scalar_u8(120));
  b.initializer("y_scale", scalar_f32(0.03f)).initializer("y_zero", scalar_u8(110));
  b.initializer("p_scale", scalar_f32(0.01f)).initializer("p_zero", scalar_u8(0));
  b.initializer("pool_scale", scalar_f32(pool_scale));
  for (const char* x : {"a", "b"}) {
    const std::string s = x;
    b.node("QuantizeLinear", {s, s + "_scale", s + "_zero"}, {s + "_q"});
    b.node("DequantizeLinear", {s + "_q", s + "_scale", s + "_zero"}, {s + "_dq"});
  }
  // Each float result through Q and DQ to a graph output.
  const auto quantized_output = [&](const std::string& f, const std::string& y, const char* scale, const char* zero) {
    b.node("QuantizeLinear", {f, scale, zero}, {y + "_q"});
    b.node("DequantizeLinear", {y + "_q", scale, zero}, {y});
  };
  b.node("Add", {"a_dq", "b_dq"}, {"sum_f"});
  quantized_output("sum_f", "sum", "y_scale", "y_zero");
  b.node("Mul", {"a_dq", "b_dq"}, {"product_f"});
  quantized_output("product_f", "product", "p_scale", "p_zero");
  set_attr(b.node("Concat", {"a_dq", "b_dq"}, {"joined_f"}), "axis", int64_t{1});
  quantized_output("joined_f", "joined", "y_scale", "y_zero");
  onnx::NodeProto& avg = b.node("AveragePool", {"a_dq"}, {"smooth_f"});
  set_attr(avg, "kernel_shape", std::vector<int64_t>{3, 3});
  set_attr(avg, "pads", std::vector<int64_t>{1, 1, 1, 1});
  quantized_output("smooth_f", "smooth", "b_scale", "b_zero");
  b.node("GlobalAveragePool", {"b_dq"}, {"gap_f"});
  quantized_output("gap_f", "gap", "y_scale", "y_zero");
  set_attr(b.node("MaxPool", {"a_dq"}, {"pooled_f"}), "kernel_shape", std::vector<int64_t>{2, 2});
  quantized_output("pooled_f", "pooled", "pool_scale", "a_zero");
  b.node("HardSwish", {"b_dq"}, {"swished_f"});
  quantized_output("swished_f", "swished", "y_scale", "y_zero");
  return b;
}

// fold_qdq_elementwise turns each into its int8 op (the MaxPool into a
// MaxPool on the codes, the HardSwish into a QLinearActivation), and the outputs stay within one output quantum of
// the float chains' (the unoptimised model; the largest quantum is 0.03)
// on the reference and CPU backends.
TEST(FoldQdq, ElementwiseOpsFoldIntoInt8Ops) {
  OnnxBuilder b = qdq_elementwise();
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  for (const char* what : {"Add -> QLinearAdd", "Mul -> QLinearMul", "Concat -> QLinearConcat",
                           "AveragePool -> QLinearAveragePool", "GlobalAveragePool -> QLinearGlobalAveragePool",
                           "MaxPool on 8-bit codes", "activation -> QLinearActivation"}) {
    EXPECT_EQ(c.counter("fold_qdq", what), 1) << what;
  }
  for (fb::OpType float_op : {fb::OpType::Add, fb::OpType::Mul, fb::OpType::Concat, fb::OpType::AveragePool,
                              fb::OpType::GlobalAveragePool, fb::OpType::HardSwish}) {
    EXPECT_EQ(c.count(float_op), 0) << fb::EnumNameOpType(float_op);
  }
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  EXPECT_EQ(max_pool_input_dtypes(c), std::vector<DType>{DType::U8});
  for (Backend backend : {Backend::kReference, Backend::kCpu}) {
    expect_same_outputs(b, {random_f32({1, 4, 6, 6}, 7, -2.5f, 2.5f), random_f32({1, 4, 6, 6}, 8, -1.8f, 1.8f)},
                        0.0301, {}, backend);
  }
}

// A MaxPool whose QuantizeLinear requantises stays float, and says why.
TEST(FoldQdq, MaxPoolBetweenDifferentParametersStaysFloat) {
  OnnxBuilder b = qdq_elementwise(0.05f);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("fold_qdq", "MaxPool left float: its QuantizeLinear requantises"), 1);
  EXPECT_EQ(max_pool_input_dtypes(c), std::vector<DType>{DType::F32});
}

// --quantize int8 runs the ops between int8 convolutions in int8 as well:
// a Concat of two Conv branches, a product of them, an AveragePool and the
// GlobalAveragePool of a classifier, uint8 passing between them; an Add of
// two graph inputs (no int8 producer) stays float.
TEST(QuantizeInt8, OpsBetweenConvsRunInInt8) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 12, 12}).input("u", DType::F32, {1, 3, 12, 12}).output("y").output("v");
  b.initializer("w1", random_f32({4, 3, 3, 3}, 1)).initializer("w2", random_f32({4, 3, 3, 3}, 2));
  b.initializer("w3", random_f32({6, 8, 1, 1}, 3));
  set_attr(b.node("Conv", {"x", "w1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  set_attr(b.node("Conv", {"x", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Mul", {"c1", "c2"}, {"m"});
  set_attr(b.node("Concat", {"m", "c2"}, {"j"}), "axis", int64_t{1});
  onnx::NodeProto& avg = b.node("AveragePool", {"j"}, {"s"});
  set_attr(avg, "kernel_shape", std::vector<int64_t>{2, 2});
  set_attr(avg, "strides", std::vector<int64_t>{2, 2});
  b.node("Conv", {"s", "w3"}, {"c3"});
  b.node("GlobalAveragePool", {"c3"}, {"y"});
  b.node("Add", {"x", "u"}, {"v"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  for (const char* what : {"Mul -> QLinearMul", "Concat -> QLinearConcat", "AveragePool -> QLinearAveragePool",
                           "GlobalAveragePool -> QLinearGlobalAveragePool"}) {
    EXPECT_EQ(c.counter("quantize_int8", what), 1) << what;
  }
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 3);
  EXPECT_EQ(c.count(fb::OpType::Add), 1);
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);    // x, once for both branches
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);  // y
  Converted f = convert(b);
  ASSERT_TRUE(f.model);
  for (uint32_t seed : {101u, 202u}) {
    const std::vector<Tensor> inputs = {random_f32({1, 3, 12, 12}, seed), random_f32({1, 3, 12, 12}, seed + 1)};
    const std::vector<Tensor> want = f.run(inputs);
    for (Backend backend : {Backend::kReference, Backend::kCpu}) {
      const std::vector<Tensor> got = c.run(inputs, backend);
      ASSERT_EQ(got.size(), 2u);
      const std::vector<double> a = got[0].to_doubles(), e = want[0].to_doubles();
      double worst = 0;
      for (size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::fabs(a[k] - e[k]));
      EXPECT_LE(worst, 0.05 * max_abs(want[0])) << "seed " << seed;
      EXPECT_GT(worst, 0.0) << "an int8 graph that matches float exactly did not quantise";
      EXPECT_EQ(got[1].to_doubles(), want[1].to_doubles()) << "the float Add changed";
    }
  }
}

// --quantize int8 keeps a Conv's HardSwish and SiLU fused (the int8 store
// applies them) and splits a Sigmoid off as a QLinearActivation: every op
// between the input's QuantizeLinear and the output's DequantizeLinear is
// an int8 op.
TEST(QuantizeInt8, ConvActivationsRunInInt8) {
  OnnxBuilder b(14);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w1", random_f32({6, 3, 3, 3}, 1)).initializer("w2", random_f32({6, 6, 3, 3}, 2, -0.3f, 0.3f));
  b.initializer("w3", random_f32({4, 6, 1, 1}, 3));
  set_attr(b.node("Conv", {"x", "w1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("HardSwish", {"c1"}, {"h"});
  set_attr(b.node("Conv", {"h", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Sigmoid", {"c2"}, {"s"});
  b.node("Mul", {"c2", "s"}, {"silu"});
  b.node("Conv", {"silu", "w3"}, {"c3"});
  b.node("Sigmoid", {"c3"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("quantize_int8", "activation split off a quantisable op"), 1);  // the last Sigmoid
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 3);
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::HardSwish) + c.count(fb::OpType::Sigmoid) + c.count(fb::OpType::Mul), 0);
  expect_close_to_float(b, c, 0.05);
}

// A SiLU written out after an op that is no Conv (here an Add of two int8
// Convs' outputs) runs as one QLinearActivation table, not a Sigmoid table
// and a QLinearMul.
TEST(QuantizeInt8, StandaloneSiluRunsAsOneTable) {
  OnnxBuilder b(14);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w1", random_f32({4, 3, 3, 3}, 1)).initializer("w2", random_f32({4, 3, 3, 3}, 2));
  set_attr(b.node("Conv", {"x", "w1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  set_attr(b.node("Conv", {"x", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Mul", {"c1", "c2"}, {"m"});
  b.node("Sigmoid", {"m"}, {"s"});
  b.node("Mul", {"m", "s"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("quantize_int8", "SiLU (Sigmoid, Mul) -> QLinearActivation"), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearMul), 1);  // c1 * c2
  EXPECT_EQ(c.count(fb::OpType::Sigmoid), 0);
  expect_close_to_float(b, c, 0.05);
}

}  // namespace
}  // namespace mote::convert::test
