// apply_fused_activation, the helper the Conv/Gemm kernels call on their
// output rows: in place, against the reference kernels of the standalone ops.
#include "runtime/cpu/activation.hpp"

#include <cmath>
#include <vector>

#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

// The fused kind's result through the reference kernels: the standalone op
// (SiLU as x * Sigmoid(x)).
Tensor reference_activation(const fb::FusedActivationT& act, const Tensor& x) {
  auto run = [](const fb::OpT& op, const Inputs& inputs) {
    auto y = run_op(op, inputs, Impl::kReference);
    EXPECT_TRUE(y.ok()) << y.status().to_string();
    return y.ok() ? (*y)[0] : Tensor();
  };
  fb::ActivationAttrsT alpha;
  alpha.alpha = act.alpha;
  switch (act.kind) {
    case fb::ActivationKind::Relu: return run(make_op(fb::OpType::Relu), {x});
    case fb::ActivationKind::Clip:
      return run(make_op(fb::OpType::Clip),
                 {x, Tensor::from_vector<float>({}, {act.min}), Tensor::from_vector<float>({}, {act.max})});
    case fb::ActivationKind::HardSwish: return run(make_op(fb::OpType::HardSwish), {x});
    case fb::ActivationKind::Sigmoid: return run(make_op(fb::OpType::Sigmoid), {x});
    case fb::ActivationKind::LeakyRelu: return run(make_op(fb::OpType::LeakyRelu, alpha), {x});
    case fb::ActivationKind::SiLU: {
      Tensor y = run(make_op(fb::OpType::Sigmoid), {x});
      for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] *= x.data<float>()[i];
      return y;
    }
    case fb::ActivationKind::HardSigmoid: {
      fb::ActivationAttrsT ab;
      ab.alpha = act.alpha;
      ab.beta = act.beta;
      return run(make_op(fb::OpType::HardSigmoid, ab), {x});
    }
    case fb::ActivationKind::None: return x.clone();
  }
  return x.clone();
}

TEST(FusedActivation, MatchesStandaloneOpsInPlace) {
  const std::vector<fb::ActivationKind> kinds = {fb::ActivationKind::None,    fb::ActivationKind::Relu,
                                                 fb::ActivationKind::Clip,    fb::ActivationKind::HardSwish,
                                                 fb::ActivationKind::Sigmoid, fb::ActivationKind::LeakyRelu,
                                                 fb::ActivationKind::SiLU,    fb::ActivationKind::HardSigmoid};
  for (fb::ActivationKind kind : kinds) {
    SCOPED_TRACE(fb::EnumNameActivationKind(kind));
    fb::FusedActivationT act;
    act.kind = kind;
    act.alpha = 0.2f;
    act.min = -0.5f;
    act.max = 6.0f;
    act.beta = 0.3f;  // HardSigmoid's: 0 below -1.5, 1 above 3.5
    for (int64_t n : {int64_t{1}, int64_t{13}, int64_t{127}, int64_t{1000}}) {
      Tensor x = random_tensor(DType::F32, {n}, 11, -10.0, 10.0);
      Tensor data = x.clone();
      cpu::apply_fused_activation(&act, data.data<float>(), n);
      expect_tensors_near(data, reference_activation(act, x), 1e-5, 1e-6);
    }
  }
}

// SiLU is x / (1 + e^-x) with e^-x clamped to e^88 (simd_math-inl.h), and
// Sigmoid's e^-|x| stops at e^-87: far from zero both must still be right to
// within a float's smallest normal values, and NaN must come through, on
// every SIMD target. The reference is computed here in double.
TEST(FusedActivation, SiluAndSigmoidHoldFarFromZero) {
  const std::vector<float> x = {-1e30f, -1000.0f, -100.0f, -88.5f, -87.0f, -50.0f, -20.0f, -1e-3f, -1e-30f, 0.0f,
                                1e-30f, 1e-3f,    20.0f,   50.0f,  87.0f,  88.5f,  100.0f, 1e30f,  INFINITY};
  for_each_simd_target([&] {
    for (fb::ActivationKind kind : {fb::ActivationKind::SiLU, fb::ActivationKind::Sigmoid}) {
      SCOPED_TRACE(fb::EnumNameActivationKind(kind));
      fb::FusedActivationT act;
      act.kind = kind;
      std::vector<float> y = x;
      y.push_back(NAN);
      cpu::apply_fused_activation(&act, y.data(), static_cast<int64_t>(y.size()));
      for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i], sigmoid = 1.0 / (1.0 + std::exp(-v));
        const double expected = kind == fb::ActivationKind::SiLU ? (std::isinf(v) ? v : v * sigmoid) : sigmoid;
        if (std::isinf(expected)) {
          EXPECT_EQ(y[i], expected);
        } else {
          EXPECT_NEAR(y[i], expected, 1e-6 * std::fabs(expected) + 1e-36) << "x = " << x[i];
        }
      }
      EXPECT_TRUE(std::isnan(y.back()));
    }
  });
}

TEST(FusedActivation, NullIsANoOp) {
  Tensor x = random_tensor(DType::F32, {9}, 3);
  Tensor data = x.clone();
  cpu::apply_fused_activation(nullptr, data.data<float>(), data.numel());
  expect_tensors_near(data, x, 0, 0);
}

}  // namespace
}  // namespace mote::test
