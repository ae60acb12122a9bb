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
  EXPECT_EQ(c.counter("quantize_int8", "MaxPool or Resize on uint8"), 1);
  EXPECT_EQ(c.input_dtypes(fb::OpType::MaxPool), std::vector<DType>{DType::U8});
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
  EXPECT_EQ(c.input_dtypes(fb::OpType::MaxPool), std::vector<DType>{DType::F32});
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
  EXPECT_EQ(d.input_dtypes(fb::OpType::MaxPool), std::vector<DType>{DType::F32});
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

// MobileNetV3's squeeze-excitation gate, x * HardSigmoid(Conv(Relu(Conv(
// GlobalAveragePool(x))))), runs in int8 whole: the HardSigmoid (fused
// into the Conv first) comes off as a QLinearActivation, the gate's Mul is
// a QLinearMul (before, DequantizeLinear -> HardSigmoid -> QuantizeLinear
// stayed float in each of the model's nine gates).
TEST(QuantizeInt8, HardSigmoidGateRunsInInt8) {
  OnnxBuilder b(14);
  b.input("x", DType::F32, {1, 3, 12, 12}).output("y");
  b.initializer("w0", random_f32({8, 3, 3, 3}, 1)).initializer("w1", random_f32({4, 8, 1, 1}, 2));
  b.initializer("w2", random_f32({8, 4, 1, 1}, 3));
  set_attr(b.node("Conv", {"x", "w0"}, {"c0"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c0"}, {"f"});
  b.node("GlobalAveragePool", {"f"}, {"p"});
  b.node("Conv", {"p", "w1"}, {"c1"});
  b.node("Relu", {"c1"}, {"r"});
  b.node("Conv", {"r", "w2"}, {"c2"});
  onnx::NodeProto& gate = b.node("HardSigmoid", {"c2"}, {"g"});
  set_attr(gate, "alpha", 1.0f / 6.0f);
  set_attr(gate, "beta", 0.5f);
  b.node("Mul", {"f", "g"}, {"y"});
  Converted c = convert(b, quantized());
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("quantize_int8", "activation split off a quantisable op"), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearConv), 3);
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  EXPECT_EQ(c.count(fb::OpType::QLinearMul), 1);
  EXPECT_EQ(c.count(fb::OpType::HardSigmoid), 0);
  EXPECT_EQ(c.count(fb::OpType::QuantizeLinear), 1);
  EXPECT_EQ(c.count(fb::OpType::DequantizeLinear), 1);
  for (const auto& op : c.model->graph().ops) {
    if (op->type != fb::OpType::QLinearActivation) continue;
    ASSERT_TRUE(op->fused && op->fused->kind == fb::ActivationKind::HardSigmoid);
    EXPECT_FLOAT_EQ(op->fused->alpha, 1.0f / 6.0f);
    EXPECT_FLOAT_EQ(op->fused->beta, 0.5f);
  }
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
