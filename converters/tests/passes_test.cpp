// Graph passes: each test builds a small ONNX model, converts it with and
// without the passes, checks what the passes changed and that both versions
// compute the same outputs.
#include "converters/tests/convert_test_util.hpp"

#include <algorithm>

#include "runtime/core/half.hpp"

namespace mote::convert::test {
namespace {

Tensor positive_f32(const Shape& shape, uint32_t seed) { return random_f32(shape, seed, 0.5f, 1.5f); }

// Conv -> BatchNormalization -> Relu, the pattern of most CNNs.
OnnxBuilder conv_bn_relu(bool share_conv_output = false) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 3, 8, 8}).output("y");
  b.initializer("w", random_f32({4, 3, 3, 3}, 1)).initializer("bias", random_f32({4}, 2));
  b.initializer("gamma", random_f32({4}, 3)).initializer("beta", random_f32({4}, 4));
  b.initializer("mean", random_f32({4}, 5)).initializer("var", positive_f32({4}, 6));
  set_attr(b.node("Conv", {"x", "w", "bias"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  set_attr(b.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"n"}), "epsilon", 1e-3f);
  b.node("Relu", {"n"}, {"y"});
  if (share_conv_output) {
    b.node("Neg", {"c"}, {"z"});
    b.output("z");
  }
  return b;
}

TEST(FoldBatchnorm, ConvBnReluBecomesOneConvWithFusedRelu) {
  OnnxBuilder b = conv_bn_relu();
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.count(fb::OpType::Conv), 1);
  ASSERT_TRUE(c.model->graph().ops[0]->fused);
  EXPECT_EQ(c.model->graph().ops[0]->fused->kind, fb::ActivationKind::Relu);
  EXPECT_EQ(c.counter("fold_batchnorm", "Conv+BatchNormalization"), 1);
  EXPECT_EQ(c.counter("fuse_activations", "Conv+Relu"), 1);
  // The output keeps its ONNX name.
  EXPECT_EQ(c.model->outputs()[0].name, "y");
  expect_same_outputs(b, {random_f32({1, 3, 8, 8}, 7)});
}

// A residual block: x -> Conv (c1) -> Relu -> h; Conv(h) (c2) + r -> Relu -> y,
// with r = h (identity shortcut) or a 1x1 Conv of h written after c2
// (projection shortcut), or a broadcasting r that must not fuse.
enum class Shortcut { kIdentity, kProjectionAfter, kBroadcast };
OnnxBuilder residual_block(Shortcut shortcut, bool dynamic_batch = false) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {dynamic_batch ? -1 : 2, 4, 6, 6}).output("y");
  b.initializer("w1", random_f32({4, 4, 3, 3}, 1)).initializer("b1", random_f32({4}, 2));
  b.initializer("w2", random_f32({4, 4, 3, 3}, 3)).initializer("b2", random_f32({4}, 4));
  b.initializer("wp", random_f32({4, 4, 1, 1}, 5)).initializer("s", random_f32({1, 4, 1, 1}, 6));
  set_attr(b.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"h"});
  set_attr(b.node("Conv", {"h", "w2", "b2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  std::string r = "h";
  if (shortcut == Shortcut::kProjectionAfter) b.node("Conv", {"h", "wp"}, {r = "p"});
  if (shortcut == Shortcut::kBroadcast) r = "s";
  b.node("Add", {r, "c2"}, {"sum"});
  b.node("Relu", {"sum"}, {"y"});
  return b;
}

TEST(FuseResidual, AddAndReluJoinTheConv) {
  for (Shortcut shortcut : {Shortcut::kIdentity, Shortcut::kProjectionAfter}) {
    for (bool dynamic_batch : {false, true}) {
      SCOPED_TRACE(std::string(shortcut == Shortcut::kIdentity ? "identity" : "projection") +
                   (dynamic_batch ? ", dynamic batch" : ""));
      OnnxBuilder b = residual_block(shortcut, dynamic_batch);
      Converted c = convert(b);
      ASSERT_TRUE(c.model);
      EXPECT_EQ(c.count(fb::OpType::Add), 0);
      EXPECT_EQ(c.count(fb::OpType::Relu), 0);
      EXPECT_EQ(c.counter("fuse_residual", "Conv+Add"), 1);
      const auto& ops = c.model->graph().ops;
      const auto fused = std::find_if(ops.begin(), ops.end(), [](const auto& op) { return op->inputs.size() == 4; });
      ASSERT_NE(fused, ops.end());
      ASSERT_TRUE((*fused)->fused);
      EXPECT_EQ((*fused)->fused->kind, fb::ActivationKind::Relu);
      EXPECT_GE((*fused)->inputs[3], 0);  // with a projection, either Conv may take the other as residual
      expect_same_outputs(b, {random_f32({2, 4, 6, 6}, 7)});
    }
  }
}

TEST(FuseResidual, BroadcastingAddIsLeftAlone) {
  OnnxBuilder b = residual_block(Shortcut::kBroadcast);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Add), 1);
  EXPECT_EQ(c.counter("fuse_residual", "Conv+Add"), 0);
  expect_same_outputs(b, {random_f32({2, 4, 6, 6}, 7)});
}

TEST(FoldBatchnorm, LeftAloneWhenTheConvOutputHasAnotherReader) {
  OnnxBuilder b = conv_bn_relu(/*share_conv_output=*/true);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::BatchNormalization), 1);
  expect_same_outputs(b, {random_f32({1, 3, 8, 8}, 7)});
}

TEST(FoldBatchnorm, GemmWithAlphaBetaAndTransB) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 5}).output("y");
  b.initializer("B", random_f32({6, 5}, 1)).initializer("C", random_f32({6}, 2));
  b.initializer("gamma", random_f32({6}, 3)).initializer("beta", random_f32({6}, 4));
  b.initializer("mean", random_f32({6}, 5)).initializer("var", positive_f32({6}, 6));
  auto& gemm = b.node("Gemm", {"x", "B", "C"}, {"g"});
  set_attr(gemm, "transB", int64_t{1});
  set_attr(gemm, "alpha", 0.5f);
  set_attr(gemm, "beta", 2.0f);
  b.node("BatchNormalization", {"g", "gamma", "beta", "mean", "var"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::BatchNormalization), 0);
  EXPECT_EQ(c.counter("fold_batchnorm", "Gemm+BatchNormalization"), 1);
  expect_same_outputs(b, {random_f32({2, 5}, 7)});
}

TEST(FuseActivations, SigmoidTimesInputBecomesSiLU) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 2, 5, 5}).output("y");
  b.initializer("w", random_f32({3, 2, 1, 1}, 1));
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Sigmoid", {"c"}, {"s"});
  b.node("Mul", {"s", "c"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  ASSERT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.model->graph().ops[0]->fused->kind, fb::ActivationKind::SiLU);
  expect_same_outputs(b, {random_f32({1, 2, 5, 5}, 2)});
}

TEST(FuseActivations, ClipWithConstantBoundsOnMatMul) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3, 4}).output("y");
  b.initializer("w", random_f32({4, 5}, 1, -3, 3));
  b.initializer("lo", Tensor::from_vector<float>({}, {0.0f})).initializer("hi", Tensor::from_vector<float>({}, {1.0f}));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Clip", {"m", "lo", "hi"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  ASSERT_EQ(c.model->graph().ops.size(), 1u);
  const auto& fused = *c.model->graph().ops[0]->fused;
  EXPECT_EQ(fused.kind, fb::ActivationKind::Clip);
  EXPECT_EQ(fused.min, 0.0f);
  EXPECT_EQ(fused.max, 1.0f);
  expect_same_outputs(b, {random_f32({3, 4}, 2)});
}

TEST(FuseActivations, LeakyReluKeepsItsAlpha) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 4}).output("y");
  b.initializer("w", random_f32({4, 3}, 1));
  b.node("Gemm", {"x", "w"}, {"g"});
  set_attr(b.node("LeakyRelu", {"g"}, {"y"}), "alpha", 0.3f);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  ASSERT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_FLOAT_EQ(c.model->graph().ops[0]->fused->alpha, 0.3f);
  expect_same_outputs(b, {random_f32({2, 4}, 2)});
}

// HardSigmoid fuses with its alpha and beta, or ONNX's 0.2 and 0.5 when the
// node has none (MobileNetV3's gates: Conv -> HardSigmoid).
TEST(FuseActivations, HardSigmoidKeepsItsParameters) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 4, 5, 5}).output("y").output("z");
  b.initializer("w", random_f32({3, 4, 1, 1}, 1)).initializer("v", random_f32({3, 4, 1, 1}, 3));
  b.node("Conv", {"x", "w"}, {"c"});
  onnx::NodeProto& gate = b.node("HardSigmoid", {"c"}, {"y"});
  set_attr(gate, "alpha", 1.0f / 6.0f);
  set_attr(gate, "beta", 0.25f);
  b.node("Conv", {"x", "v"}, {"d"});
  b.node("HardSigmoid", {"d"}, {"z"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  const auto& ops = c.model->graph().ops;
  ASSERT_EQ(ops.size(), 2u);
  for (const auto& op : ops) ASSERT_TRUE(op->fused && op->fused->kind == fb::ActivationKind::HardSigmoid);
  EXPECT_FLOAT_EQ(ops[0]->fused->alpha, 1.0f / 6.0f);
  EXPECT_FLOAT_EQ(ops[0]->fused->beta, 0.25f);
  EXPECT_FLOAT_EQ(ops[1]->fused->alpha, 0.2f);
  EXPECT_FLOAT_EQ(ops[1]->fused->beta, 0.5f);
  expect_same_outputs(b, {random_f32({1, 4, 5, 5}, 2, -8.0f, 8.0f)});
}

TEST(FuseActivations, NotWhenTheUnactivatedValueIsAGraphOutput) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 4}).output("m").output("y");
  b.initializer("w", random_f32({4, 3}, 1));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Relu", {"m"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Relu), 1);
  expect_same_outputs(b, {random_f32({2, 4}, 2)});
}

// The exact GELU written out, in the three orders exporters use; the
// unfused conversion (Div, Erf, Add and Mul kernels) is the reference.
enum class GeluForm { kHalfLast, kHalfOfX, kHalfOfSum };

OnnxBuilder gelu_block(GeluForm form, bool divide, float one = 1.0f, bool share_erf = false) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 3, 16}).output("y");
  b.initializer("w", random_f32({16, 16}, 1));
  b.initializer("c", Tensor::from_vector<float>({}, {divide ? 1.4142135f : 0.70710678f}));
  b.initializer("one", Tensor::from_vector<float>({}, {one}));
  b.initializer("half", Tensor::from_vector<float>({}, {0.5f}));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node(divide ? "Div" : "Mul", {"m", "c"}, {"s"});
  b.node("Erf", {"s"}, {"e"});
  b.node("Add", {"one", "e"}, {"a"});
  switch (form) {
    case GeluForm::kHalfLast:
      b.node("Mul", {"m", "a"}, {"p"});
      b.node("Mul", {"p", "half"}, {"y"});
      break;
    case GeluForm::kHalfOfX:
      b.node("Mul", {"half", "m"}, {"h"});
      b.node("Mul", {"h", "a"}, {"y"});
      break;
    case GeluForm::kHalfOfSum:
      b.node("Mul", {"a", "half"}, {"h"});
      b.node("Mul", {"m", "h"}, {"y"});
      break;
  }
  if (share_erf) b.output("e");
  return b;
}

TEST(FuseGelu, EveryWrittenOutFormBecomesOneGelu) {
  for (GeluForm form : {GeluForm::kHalfLast, GeluForm::kHalfOfX, GeluForm::kHalfOfSum}) {
    for (bool divide : {true, false}) {
      SCOPED_TRACE("form " + std::to_string(static_cast<int>(form)) + (divide ? ", x / sqrt(2)" : ", x * sqrt(0.5)"));
      OnnxBuilder b = gelu_block(form, divide);
      Converted c = convert(b);
      ASSERT_TRUE(c.model);
      EXPECT_EQ(c.counter("fuse_gelu", "Gelu"), 1);
      EXPECT_EQ(c.count(fb::OpType::Gelu), 1);
      EXPECT_EQ(c.count(fb::OpType::Erf), 0);
      EXPECT_EQ(c.count(fb::OpType::Mul) + c.count(fb::OpType::Div) + c.count(fb::OpType::Add), 0);
      EXPECT_EQ(c.model->graph().ops.size(), 2u);  // MatMul, Gelu
      expect_same_outputs(b, {random_f32({2, 3, 16}, 2, -4, 4)});
    }
  }
}

TEST(FuseGelu, LeftAloneWhenAConstantDiffersOrAnIntermediateIsRead) {
  for (bool share_erf : {false, true}) {
    OnnxBuilder b = gelu_block(GeluForm::kHalfLast, true, share_erf ? 1.0f : 1.5f, share_erf);
    Converted c = convert(b);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.count(fb::OpType::Gelu), 0);
    EXPECT_EQ(c.count(fb::OpType::Erf), 1);
    expect_same_outputs(b, {random_f32({2, 3, 16}, 2, -4, 4)});
  }
}

// A Dense layer as tf2onnx exports it (MatMul, then Add of the bias), with
// a Relu after; the unfused conversion is the reference.
TEST(FuseMatMulBias, BiasAddBecomesTheGemmsCAndTheReluJoins) {
  for (const Shape& bias_shape : {Shape{6}, Shape{1, 6}}) {
    for (bool bias_first : {false, true}) {
      SCOPED_TRACE(shape_to_string(bias_shape) + (bias_first ? ", Add(b, y)" : ", Add(y, b)"));
      OnnxBuilder b(13);
      b.input("x", DType::F32, {5, 8}).output("y");
      b.initializer("w", random_f32({8, 6}, 1)).initializer("bias", random_f32(bias_shape, 2));
      b.node("MatMul", {"x", "w"}, {"m"});
      b.node("Add", bias_first ? std::vector<std::string>{"bias", "m"} : std::vector<std::string>{"m", "bias"}, {"a"});
      b.node("Relu", {"a"}, {"y"});
      Converted c = convert(b);
      ASSERT_TRUE(c.model);
      EXPECT_EQ(c.counter("fuse_matmul_bias", "MatMul+Add"), 1);
      ASSERT_EQ(c.model->graph().ops.size(), 1u);
      const fb::OpT& gemm = *c.model->graph().ops[0];
      EXPECT_EQ(gemm.type, fb::OpType::Gemm);
      ASSERT_TRUE(gemm.fused);
      EXPECT_EQ(gemm.fused->kind, fb::ActivationKind::Relu);
      expect_same_outputs(b, {random_f32({5, 8}, 3)});
    }
  }
}

// torch's Linear on [batch, tokens, features]: reshaped to 2-D around the
// Gemm, the Relu after the Reshape back.
TEST(FuseMatMulBias, Rank3InputIsReshapedAroundTheGemm) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 3, 8}).output("y");
  b.initializer("w", random_f32({8, 6}, 1)).initializer("bias", random_f32({6}, 2));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Add", {"m", "bias"}, {"a"});
  b.node("Relu", {"a"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("fuse_matmul_bias", "MatMul+Add"), 1);
  const auto& ops = c.model->graph().ops;
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0]->type, fb::OpType::Reshape);
  EXPECT_EQ(ops[1]->type, fb::OpType::Gemm);
  EXPECT_EQ(ops[2]->type, fb::OpType::Reshape);
  EXPECT_EQ(ops[3]->type, fb::OpType::Relu);
  expect_same_outputs(b, {random_f32({2, 3, 8}, 3)});
}

TEST(FuseMatMulBias, LeftAloneWhenTheAddendIsNoBiasOrTheShapeIsDynamic) {
  struct Case {
    const char* what;
    Shape x, bias;
  };
  for (const Case& k : {Case{"full-size addend", {3, 8}, {3, 6}}, Case{"bias along the rows", {3, 8}, {3, 1}},
                        Case{"dynamic rank-3 input", {-1, 3, 8}, {6}}}) {
    SCOPED_TRACE(k.what);
    OnnxBuilder b(13);
    b.input("x", DType::F32, k.x).output("y");
    b.initializer("w", random_f32({8, 6}, 1)).initializer("bias", random_f32(k.bias, 2));
    b.node("MatMul", {"x", "w"}, {"m"});
    b.node("Add", {"m", "bias"}, {"y"});
    Converted c = convert(b);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.count(fb::OpType::MatMul), 1);
    EXPECT_EQ(c.count(fb::OpType::Add), 1);
    Shape run_shape = k.x;
    if (run_shape[0] < 0) run_shape[0] = 2;
    expect_same_outputs(b, {random_f32(run_shape, 3)});
  }
}

// Shape -> Gather -> ReduceProd -> Concat -> Reshape with a dynamic batch:
// the channel and spatial sizes are static, so the whole shape computation
// folds to a constant and only the Reshape is left.
TEST(FoldConstants, ShapeChainWithDynamicBatchFoldsToAConstantShape) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {-1, 3, 4, 4}).output("y");
  b.initializer("dims", Tensor::from_vector<int64_t>({3}, {1, 2, 3}));
  b.initializer("minus_one", Tensor::from_vector<int64_t>({1}, {-1}));
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "dims"}, {"d"});
  set_attr(b.node("ReduceProd", {"d"}, {"p"}), "keepdims", int64_t{1});
  set_attr(b.node("Concat", {"minus_one", "p"}, {"shape"}), "axis", int64_t{0});
  b.node("Reshape", {"x", "shape"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.count(fb::OpType::Reshape), 1);
  EXPECT_EQ(c.counter("fold_constants", "shape queries folded"), 1);
  // The inferred output shape keeps the batch dynamic.
  const auto& g = c.model->graph();
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.outputs[0])]->shape, (Shape{-1, 48}));
  std::vector<Tensor> out = c.run({random_f32({2, 3, 4, 4}, 1)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 48}));
}

TEST(FoldConstants, InputShapeSpecialisesAndFoldsEveryShapeOp) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {-1, 6}).output("y");
  b.node("Shape", {"x"}, {"s"});
  b.node("Reshape", {"x", "s"}, {"r"});
  b.node("Relu", {"r"}, {"y"});
  Converted c = convert(b, {.input_shapes = {{"x", {2, 6}}}});
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->inputs()[0].shape, (Shape{2, 6}));
  EXPECT_EQ(c.count(fb::OpType::Shape), 0);
  EXPECT_GE(c.counter("fold_constants", "ops folded"), 1);
}

TEST(FoldConstants, ConstantSubgraphsBecomeOneConstant) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {4}).output("y");
  b.initializer("a", random_f32({4}, 1)).initializer("c", random_f32({4}, 2));
  b.node("Exp", {"a"}, {"e"});
  b.node("Mul", {"e", "c"}, {"k"});
  b.node("Add", {"x", "k"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.counter("fold_constants", "ops folded"), 2);
  expect_same_outputs(b, {random_f32({4}, 3)});
}

TEST(RemoveIdentities, TheInputTakesTheGraphOutputsName) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.node("Relu", {"x"}, {"r"});
  b.node("Identity", {"r"}, {"i"});
  b.node("Dropout", {"i"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.counter("remove_identities", "Identity removed"), 2);
  EXPECT_EQ(c.model->outputs()[0].name, "y");
}

TEST(RemoveIdentities, AnInputPassedStraightToAnOutputKeepsBothNames) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.node("Identity", {"x"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->inputs()[0].name, "x");
  EXPECT_EQ(c.model->outputs()[0].name, "y");
  Tensor x = random_f32({3}, 1);
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 1u);
  expect_near(out[0], x, 0);
}

TEST(RemoveDead, UnusedBranchesAndWeightsAreDropped) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {4}).output("y");
  b.initializer("unused_w", random_f32({64}, 1));
  b.node("Relu", {"x"}, {"y"});
  b.node("Neg", {"x"}, {"dead"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  EXPECT_EQ(c.model->weight_bytes(), 0u);
}

TEST(Fp16, LargeWeightsBecomeHalfSmallOnesStayFloat) {
  OnnxBuilder b = conv_bn_relu();
  Converted c = convert(b, {.fp16 = true});
  ASSERT_TRUE(c.model);
  int half = 0, single = 0;
  for (const auto& t : c.model->graph().tensors) {
    if (t->buffer == 0) continue;
    half += t->dtype == DType::F16;
    single += t->dtype == DType::F32;
  }
  EXPECT_EQ(half, 1);    // the folded 4x3x3x3 weight
  EXPECT_EQ(single, 1);  // the 4-element bias
  expect_same_outputs(b, {random_f32({1, 3, 8, 8}, 7)}, 1e-2, {.fp16 = true});
}

// An f16 model: x (f16) + w (f16 constant) -> Relu -> y (f16). The graph
// computes in f32 with a Cast at each edge, and its output is the f16
// rounding of the f32 result (checked against values computed here).
TEST(WidenF16, F16GraphComputesInF32BetweenCastsAtItsEdges) {
  const std::vector<float> xs = {-1.5f, 0.25f, 2.0f, 1000.0f}, ws = {1.0f, 0.5f, -3.0f, 0.125f};
  Tensor x = Tensor::zeros(DType::F16, {4}), w = Tensor::zeros(DType::F16, {4});
  for (size_t i = 0; i < 4; ++i) {
    x.data<uint16_t>()[i] = float_to_half(xs[i]);
    w.data<uint16_t>()[i] = float_to_half(ws[i]);
  }
  OnnxBuilder b(13);
  b.input("x", DType::F16, {4}).output("y");
  b.initializer("w", w);
  b.node("Add", {"x", "w"}, {"s"});
  b.node("Relu", {"s"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  const auto& ops = c.model->graph().ops;
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops.front()->type, fb::OpType::Cast);
  EXPECT_EQ(ops.back()->type, fb::OpType::Cast);
  EXPECT_EQ(c.model->inputs()[0].dtype, DType::F16);
  EXPECT_EQ(c.model->outputs()[0].dtype, DType::F16);
  EXPECT_EQ(c.counter("widen_f16", "f16 constants widened"), 1);
  std::vector<Tensor> got = c.run({x});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].dtype(), DType::F16);
  for (size_t i = 0; i < 4; ++i) {
    const float want = std::max(0.0f, xs[i] + ws[i]);
    EXPECT_EQ(got[0].data<uint16_t>()[i], float_to_half(want)) << i;
  }
}

}  // namespace
}  // namespace mote::convert::test
