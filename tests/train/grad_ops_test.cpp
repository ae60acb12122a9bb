// Each gradient builder against central finite differences (grad_check.hpp
// explains the scalar checked, the step and the tolerances).
#include <gtest/gtest.h>

#include "runtime/train/autodiff.hpp"
#include "runtime/train/losses.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/train/grad_check.hpp"

namespace mote::test {
namespace {

Tensor rnd(Shape shape, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  return random_tensor(DType::F32, std::move(shape), seed, lo, hi);
}

// One op on the inputs, attributes from `attrs` when given.
template <class Attrs = std::nullptr_t>
GradCase one_op(fb::OpType type, std::vector<std::pair<std::string, Tensor>> inputs, Attrs attrs = nullptr) {
  GradCase c;
  c.inputs = std::move(inputs);
  c.forward = [type, attrs](TrainGraph& g, const std::vector<int>& in) {
    if constexpr (std::is_same_v<Attrs, std::nullptr_t>) {
      return g.op1(type, in);
    } else {
      return g.op1(type, in, attrs);
    }
  };
  return c;
}

TEST(GradBinary, AddSubMulDivWithBroadcasting) {
  for (fb::OpType type : {fb::OpType::Add, fb::OpType::Sub, fb::OpType::Mul, fb::OpType::Div}) {
    const bool div = type == fb::OpType::Div;
    // Both operands broadcast: [2,3,4] with [3,1], then [4] with [2,3,4].
    check_gradients(one_op(type, {{"a", rnd({2, 3, 4}, 1)}, {"b", div ? rnd({3, 1}, 2, 0.5, 1.5) : rnd({3, 1}, 2)}}),
                    std::string(op_type_name(type)) + " [2,3,4] x [3,1]");
    check_gradients(one_op(type, {{"a", rnd({4}, 3)}, {"b", div ? rnd({2, 3, 4}, 4, 0.5, 1.5) : rnd({2, 3, 4}, 4)}}),
                    std::string(op_type_name(type)) + " [4] x [2,3,4]");
  }
}

TEST(GradBinary, SameTensorOnBothSides) {
  // x * x: the two gradient contributions must be summed.
  GradCase c;
  c.inputs = {{"x", rnd({3, 5}, 5)}};
  c.forward = [](TrainGraph& g, const std::vector<int>& in) { return g.mul(in[0], in[0]); };
  check_gradients(c, "x * x");
}

TEST(GradUnary, Activations) {
  fb::ActivationAttrsT leaky;
  leaky.alpha = 0.2f;
  check_gradients(one_op(fb::OpType::Relu, {{"x", away_from_zero({4, 6}, 10)}}), "Relu");
  check_gradients(one_op(fb::OpType::LeakyRelu, {{"x", away_from_zero({4, 6}, 11)}}, leaky), "LeakyRelu 0.2");
  check_gradients(one_op(fb::OpType::LeakyRelu, {{"x", away_from_zero({4, 6}, 12)}}), "LeakyRelu default");
  check_gradients(one_op(fb::OpType::Sigmoid, {{"x", rnd({4, 6}, 13, -3, 3)}}), "Sigmoid");
  check_gradients(one_op(fb::OpType::Tanh, {{"x", rnd({4, 6}, 14, -2, 2)}}), "Tanh");
  check_gradients(one_op(fb::OpType::Softplus, {{"x", rnd({4, 6}, 15, -3, 3)}}), "Softplus");
}

// Moves values within 0.05 of a kink at +-k out to 0.1 past it.
void away_from_kinks(Tensor& t, float k) {
  float* d = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    for (float kink : {-k, k}) {
      if (std::abs(d[i] - kink) < 0.05f) d[i] = kink + (d[i] < kink ? -0.1f : 0.1f);
    }
  }
}

TEST(GradUnary, HardSwish) {
  // Kinks at -3 and 3 (the clip's bounds); inputs cover all three pieces.
  for (const auto& [shape, seed] : std::vector<std::pair<Shape, uint32_t>>{{{4, 6}, 16}, {{2, 3, 5}, 17}}) {
    Tensor x = rnd(shape, seed, -5, 5);
    away_from_kinks(x, 3.0f);
    check_gradients(one_op(fb::OpType::HardSwish, {{"x", x}}), "HardSwish " + shape_to_string(shape));
  }
}

TEST(GradUnary, HardSigmoid) {
  // ONNX's default (kinks at -2.5 and 2.5) and MobileNetV3's alpha 1/6
  // (at -3 and 3); inputs cover all three pieces.
  fb::ActivationAttrsT mobilenet;
  mobilenet.alpha = 1.0f / 6.0f;
  mobilenet.beta = 0.5f;
  Tensor x = rnd({4, 6}, 28, -5, 5);
  away_from_kinks(x, 2.5f);
  check_gradients(one_op(fb::OpType::HardSigmoid, {{"x", x}}), "HardSigmoid default");
  Tensor y = rnd({2, 3, 5}, 29, -5, 5);
  away_from_kinks(y, 3.0f);
  check_gradients(one_op(fb::OpType::HardSigmoid, {{"x", y}}, mobilenet), "HardSigmoid 1/6");
}

TEST(GradUnary, GeluExactAndTanh) {
  fb::ActivationAttrsT tanh_form;
  tanh_form.approximate_tanh = true;
  check_gradients(one_op(fb::OpType::Gelu, {{"x", rnd({4, 6}, 18, -3, 3)}}), "Gelu erf [4,6]");
  check_gradients(one_op(fb::OpType::Gelu, {{"x", rnd({2, 1, 7}, 19, -4, 2)}}), "Gelu erf [2,1,7]");
  check_gradients(one_op(fb::OpType::Gelu, {{"x", rnd({4, 6}, 26, -3, 3)}}, tanh_form), "Gelu tanh [4,6]");
  check_gradients(one_op(fb::OpType::Gelu, {{"x", rnd({3, 5}, 27, -2, 4)}}, tanh_form), "Gelu tanh [3,5]");
}

TEST(GradUnary, Math) {
  check_gradients(one_op(fb::OpType::Neg, {{"x", rnd({3, 4}, 20)}}), "Neg");
  check_gradients(one_op(fb::OpType::Abs, {{"x", away_from_zero({3, 4}, 21)}}), "Abs");
  check_gradients(one_op(fb::OpType::Exp, {{"x", rnd({3, 4}, 22)}}), "Exp");
  check_gradients(one_op(fb::OpType::Log, {{"x", rnd({3, 4}, 23, 0.5, 2.0)}}), "Log");
  check_gradients(one_op(fb::OpType::Sqrt, {{"x", rnd({3, 4}, 24, 0.5, 2.0)}}), "Sqrt");
  GradCase clip;
  clip.inputs = {{"x", rnd({5, 4}, 25, -2, 2)}};
  clip.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::Clip, {in[0], g.scalar(-0.5f), g.scalar(0.7f)});
  };
  // Keep the inputs away from the clip bounds.
  float* d = clip.inputs[0].second.data<float>();
  for (int i = 0; i < 20; ++i) {
    if (std::abs(d[i] + 0.5f) < 0.05f || std::abs(d[i] - 0.7f) < 0.05f) d[i] += 0.2f;
  }
  check_gradients(clip, "Clip");
}

TEST(GradDropout, TrainingModeAtAFixedStepAndInferenceMode) {
  // With the step fixed the mask is fixed, so Dropout is linear in x and
  // finite differences see exactly the dropped elements' zero gradient.
  for (auto [ratio, step] : std::vector<std::pair<float, int64_t>>{{0.4f, 3}, {0.75f, 12}}) {
    fb::DropoutAttrsT a;
    a.ratio = ratio;
    a.seed = 2024;
    a.training_mode = true;
    check_gradients(one_op(fb::OpType::Dropout, {{"x", rnd({4, 9}, 28)}, {"step", Tensor::from_vector<int64_t>({}, {step})}}, a),
                    "Dropout training, ratio " + std::to_string(ratio));
  }
  fb::DropoutAttrsT inference;
  inference.ratio = 0.5f;
  check_gradients(one_op(fb::OpType::Dropout, {{"x", rnd({3, 5}, 29)}}, inference), "Dropout inference");
}

TEST(GradSoftmax, SoftmaxAndLogSoftmaxAlongEachAxis) {
  for (int64_t axis : {-1, 0, 1}) {
    fb::AxisAttrsT a;
    a.axis = axis;
    check_gradients(one_op(fb::OpType::Softmax, {{"x", rnd({3, 5}, 30, -2, 2)}}, a), "Softmax axis " + std::to_string(axis));
    check_gradients(one_op(fb::OpType::LogSoftmax, {{"x", rnd({3, 5}, 31, -2, 2)}}, a),
                    "LogSoftmax axis " + std::to_string(axis));
  }
  // No attribute: opset-13 default axis -1, on a 3-D input.
  check_gradients(one_op(fb::OpType::Softmax, {{"x", rnd({2, 3, 4}, 32, -2, 2)}}), "Softmax default axis");
}

TEST(GradShape, ReshapeFlattenTranspose) {
  GradCase reshape;
  reshape.inputs = {{"x", rnd({2, 3, 4}, 40)}};
  reshape.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return g.op1(fb::OpType::Reshape, {in[0], g.i64s({4, -1})});
  };
  check_gradients(reshape, "Reshape");
  fb::AxisAttrsT axis2;
  axis2.axis = 2;
  check_gradients(one_op(fb::OpType::Flatten, {{"x", rnd({2, 3, 4}, 41)}}), "Flatten default axis");
  check_gradients(one_op(fb::OpType::Flatten, {{"x", rnd({2, 3, 4}, 42)}}, axis2), "Flatten axis 2");
  fb::TransposeAttrsT perm;
  perm.perm = {1, 2, 0};
  check_gradients(one_op(fb::OpType::Transpose, {{"x", rnd({2, 3, 4}, 43)}}, perm), "Transpose 1,2,0");
  check_gradients(one_op(fb::OpType::Transpose, {{"x", rnd({2, 3, 4}, 44)}}), "Transpose default");
}

TEST(GradReduce, SumAndMean) {
  for (fb::OpType type : {fb::OpType::ReduceSum, fb::OpType::ReduceMean}) {
    for (bool keepdims : {false, true}) {
      GradCase c;
      c.inputs = {{"x", rnd({2, 3, 4}, 50)}};
      c.forward = [type, keepdims](TrainGraph& g, const std::vector<int>& in) {
        fb::ReduceAttrsT a;
        a.keepdims = keepdims;
        return g.op1(type, {in[0], g.i64s({0, -1})}, a);
      };
      check_gradients(c, std::string(op_type_name(type)) + " axes 0,-1 keepdims " + std::to_string(keepdims));
    }
    check_gradients(one_op(type, {{"x", rnd({2, 3, 4}, 51)}}), std::string(op_type_name(type)) + " all axes");
  }
}

TEST(GradMatrix, GemmEveryTransposeWithBiasBroadcast) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      fb::GemmAttrsT a;
      a.trans_a = ta;
      a.trans_b = tb;
      a.alpha = 0.7f;
      a.beta = 1.3f;
      Shape sa = ta ? Shape{4, 3} : Shape{3, 4};
      Shape sb = tb ? Shape{5, 4} : Shape{4, 5};
      check_gradients(one_op(fb::OpType::Gemm, {{"a", rnd(sa, 60)}, {"b", rnd(sb, 61)}, {"c", rnd({5}, 62)}}, a),
                      "Gemm trans_a " + std::to_string(ta) + " trans_b " + std::to_string(tb));
    }
  }
  check_gradients(one_op(fb::OpType::Gemm, {{"a", rnd({3, 4}, 63)}, {"b", rnd({4, 5}, 64)}}), "Gemm without C");
}

TEST(GradMatrix, MatMulBatchedAndBroadcast) {
  check_gradients(one_op(fb::OpType::MatMul, {{"a", rnd({3, 4}, 70)}, {"b", rnd({4, 5}, 71)}}), "MatMul 2-D");
  check_gradients(one_op(fb::OpType::MatMul, {{"a", rnd({2, 3, 4}, 72)}, {"b", rnd({4, 5}, 73)}}), "MatMul [2,3,4] x [4,5]");
  check_gradients(one_op(fb::OpType::MatMul, {{"a", rnd({3, 4}, 74)}, {"b", rnd({2, 1, 4, 5}, 75)}}),
                  "MatMul [3,4] x [2,1,4,5]");
}

// Attention as fuse_attention writes it: 4-D heads, the one-head 3-D form
// with a scale, and an additive mask (data: no gradient).
TEST(GradAttention, FourDThreeDAndMasked) {
  fb::AttentionAttrsT plain;
  check_gradients(one_op(fb::OpType::Attention,
                         {{"q", rnd({1, 2, 3, 4}, 80)}, {"k", rnd({1, 2, 5, 4}, 81)}, {"v", rnd({1, 2, 5, 3}, 82)}}, plain),
                  "Attention 4-D");
  fb::AttentionAttrsT one_head;
  one_head.q_num_heads = one_head.kv_num_heads = 1;
  one_head.scale = 0.5f;
  check_gradients(
      one_op(fb::OpType::Attention, {{"q", rnd({2, 3, 4}, 83)}, {"k", rnd({2, 5, 4}, 84)}, {"v", rnd({2, 5, 2}, 85)}},
             one_head),
      "Attention 3-D, one head");
  GradCase masked = one_op(fb::OpType::Attention,
                           {{"q", rnd({1, 2, 3, 4}, 86)}, {"k", rnd({1, 2, 5, 4}, 87)}, {"v", rnd({1, 2, 5, 3}, 88)},
                            {"mask", rnd({3, 5}, 89, -2, 0)}},
                           plain);
  masked.constant_inputs = {"mask"};
  check_gradients(masked, "Attention with a mask");
  // The same graphs in f32 on the CPU backend: the forward through its
  // Attention kernel, the gradients through MatMul and Softmax kernels.
  check_cpu_matches_reference(masked, "Attention with a mask");
}

TEST(GradLoss, EachLossAgainstFiniteDifferences) {
  GradCase ce;
  ce.inputs = {{"logits", rnd({4, 5}, 80, -2, 2)}, {"labels", Tensor::from_vector<int64_t>({4}, {0, 3, 4, 1})}};
  ce.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return build_loss(g, LossKind::kSoftmaxCrossEntropy, in[0], in[1]);
  };
  check_gradients(ce, "softmax cross-entropy");
  GradCase mse;
  mse.inputs = {{"pred", rnd({4, 3}, 81)}, {"target", rnd({4, 3}, 82)}};
  mse.constant_inputs = {"target"};
  mse.forward = [](TrainGraph& g, const std::vector<int>& in) { return build_loss(g, LossKind::kMse, in[0], in[1]); };
  check_gradients(mse, "MSE");
  GradCase bce;
  bce.inputs = {{"logits", away_from_zero({4, 3}, 83, 0.1, 3.0)}, {"target", rnd({4, 3}, 84, 0.0, 1.0)}};
  bce.constant_inputs = {"target"};
  bce.forward = [](TrainGraph& g, const std::vector<int>& in) {
    return build_loss(g, LossKind::kBceWithLogits, in[0], in[1]);
  };
  check_gradients(bce, "BCE with logits");
}

// NegativeLogLikelihoodLoss as training builds it (losses.hpp's nll_loss,
// also behind the softmax cross-entropy above): each reduction, class
// weights, ignore_index inside and outside [0, C), spatial targets. The loss
// against the op's reference kernel, its gradient against finite differences.
TEST(GradLoss, NegativeLogLikelihoodAsOps) {
  using R = fb::LossReduction;
  struct NllCase {
    Shape input;
    bool weight;
    R reduction;
    std::optional<int64_t> ignore;
  };
  const NllCase cases[] = {
      {{5, 4}, false, R::Mean, std::nullopt}, {{5, 4}, true, R::Mean, 2},    {{3, 4, 2}, true, R::Sum, -100},
      {{3, 4, 2}, false, R::None, 1},         {{3, 4, 2}, false, R::Mean, -100}, {{3, 4, 2}, true, R::None, std::nullopt},
  };
  uint32_t seed = 90;
  for (const NllCase& nc : cases) {
    const std::string what = "NLL " + shape_to_string(nc.input) + (nc.weight ? " weighted" : "") + " reduction " +
                             std::to_string(static_cast<int>(nc.reduction)) +
                             (nc.ignore ? " ignore " + std::to_string(*nc.ignore) : "");
    Shape target_shape = nc.input;
    target_shape.erase(target_shape.begin() + 1);
    Tensor target = random_tensor(DType::I64, target_shape, seed, 0, 3.99);
    if (nc.ignore) target.data<int64_t>()[0] = target.data<int64_t>()[3] = *nc.ignore;
    GradCase c;
    c.inputs = {{"log_probs", rnd(nc.input, seed + 1, -3, 0)}, {"target", target}};
    if (nc.weight) c.inputs.push_back({"weight", rnd({nc.input[1]}, seed + 2, 0.5, 1.5)});
    c.constant_inputs = {"weight"};
    c.forward = [nc](TrainGraph& g, const std::vector<int>& in) {
      return nll_loss(g, in[0], in[1], nc.weight ? in[2] : -1, nc.reduction, nc.ignore);
    };
    fb::LossAttrsT a;
    a.reduction = nc.reduction;
    a.has_ignore_index = nc.ignore.has_value();
    a.ignore_index = nc.ignore.value_or(0);
    Inputs op_inputs;
    for (const auto& [name, value] : c.inputs) op_inputs.push_back(value);
    auto want = run_op(make_op(fb::OpType::NegativeLogLikelihoodLoss, a), op_inputs, Impl::kReference);
    ASSERT_TRUE(want.ok()) << what << ": " << want.status().to_string();
    c.expected_y = (*want)[0];
    check_gradients(c, what);
    seed += 10;
  }
}

TEST(GradGraph, SmallMlpEndToEnd) {
  // Gemm -> Tanh -> MatMul -> LogSoftmax: gradients flow through a chain and
  // every weight of it is checked at once (Tanh: no kink for FD to cross).
  GradCase c;
  c.inputs = {{"x", rnd({3, 4}, 90)}, {"w1", rnd({4, 6}, 91)}, {"b1", rnd({6}, 92)}, {"w2", rnd({6, 2}, 93)}};
  c.constant_inputs = {"x"};
  c.forward = [](TrainGraph& g, const std::vector<int>& in) {
    int h = g.op1(fb::OpType::Tanh, {g.op1(fb::OpType::Gemm, {in[0], in[1], in[2]})});
    fb::AxisAttrsT axis;
    axis.axis = 1;
    return g.op1(fb::OpType::LogSoftmax, {g.op1(fb::OpType::MatMul, {h, in[3]})}, axis);
  };
  check_gradients(c, "MLP");
  // The same backward graph in f32 on the CPU kernels training runs.
  check_cpu_matches_reference(c, "MLP");
}

TEST(GradErrors, MissingBuilderNamesTheOp) {
  TrainGraph g;
  int x = g.input("x", DType::F32, {3});
  int y = g.op1(fb::OpType::Cos, {x});
  int loss = g.op1(fb::OpType::ReduceSum, {y});
  auto grads = build_gradients(g, loss, {x});
  ASSERT_FALSE(grads.ok());
  EXPECT_NE(grads.status().message().find("Cos"), std::string::npos) << grads.status().message();
}

}  // namespace
}  // namespace mote::test
