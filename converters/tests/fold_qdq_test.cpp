// fold_qdq and fold_qdq_elementwise: QDQ models (onnxruntime's
// quantize_static writes this form) whose Conv, MatMul, Gemm and the ops
// around them fold into Mote's int8 ops, what stays float and why, and how
// far the folded graph's outputs are from the float chains' (the unoptimised
// model) on the reference and CPU backends.
#include <cmath>

#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

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

// A QDQ graph of the ops around convolutions, each reading dequantised
// 8-bit tensors and writing into a QuantizeLinear, as onnxruntime's
// quantiser writes them: a and b (u8, [1, 4, 6, 6]) -> Add, Mul, Concat,
// AveragePool, GlobalAveragePool, a HardSwish, a MaxPool whose
// QuantizeLinear has its input's parameters (`pool_scale` for another) and
// a bilinear 2x Resize whose QuantizeLinear has its input's, each a graph
// output.
OnnxBuilder qdq_elementwise(float pool_scale = 0.02f) {
  OnnxBuilder b(13);
  b.input("a", DType::F32, {1, 4, 6, 6}).input("b", DType::F32, {1, 4, 6, 6});
  for (const char* y : {"sum", "product", "joined", "smooth", "gap", "pooled", "swished", "gated", "upsampled"})
    b.output(y);
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
  set_attr(b.node("HardSigmoid", {"a_dq"}, {"gated_f"}), "alpha", 1.0f / 6.0f);
  quantized_output("gated_f", "gated", "p_scale", "p_zero");
  b.initializer("up_scales", Tensor::from_vector<float>({4}, {1, 1, 2, 2}));
  set_attr(b.node("Resize", {"b_dq", "", "up_scales"}, {"upsampled_f"}), "mode", std::string("linear"));
  quantized_output("upsampled_f", "upsampled", "b_scale", "b_zero");
  return b;
}

// fold_qdq_elementwise turns each into its int8 op (the MaxPool and the
// Resize into the same ops on the codes, the HardSwish and the HardSigmoid
// into QLinearActivations), and the outputs stay within one output quantum of the
// float chains' (the unoptimised model; the largest quantum is 0.03) on the
// reference and CPU backends.
TEST(FoldQdq, ElementwiseOpsFoldIntoInt8Ops) {
  OnnxBuilder b = qdq_elementwise();
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  for (const char* what :
       {"Add -> QLinearAdd", "Mul -> QLinearMul", "Concat -> QLinearConcat", "AveragePool -> QLinearAveragePool",
        "GlobalAveragePool -> QLinearGlobalAveragePool", "MaxPool on 8-bit codes", "Resize on 8-bit codes"}) {
    EXPECT_EQ(c.counter("fold_qdq", what), 1) << what;
  }
  EXPECT_EQ(c.counter("fold_qdq", "activation -> QLinearActivation"), 2);
  for (fb::OpType float_op : {fb::OpType::Add, fb::OpType::Mul, fb::OpType::Concat, fb::OpType::AveragePool,
                              fb::OpType::GlobalAveragePool, fb::OpType::HardSwish, fb::OpType::HardSigmoid}) {
    EXPECT_EQ(c.count(float_op), 0) << fb::EnumNameOpType(float_op);
  }
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 2);
  EXPECT_EQ(c.input_dtypes(fb::OpType::MaxPool), std::vector<DType>{DType::U8});
  EXPECT_EQ(c.input_dtypes(fb::OpType::Resize), std::vector<DType>{DType::U8});
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
  EXPECT_EQ(c.input_dtypes(fb::OpType::MaxPool), std::vector<DType>{DType::F32});
}

}  // namespace
}  // namespace mote::convert::test
