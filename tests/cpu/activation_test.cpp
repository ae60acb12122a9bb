// apply_fused_activation, the helper the Conv/Gemm kernels call on their
// output rows: in place, against the reference kernels of the standalone ops.
#include "runtime/cpu/activation.hpp"

#include "tests/support/op_test_util.hpp"

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
    case fb::ActivationKind::None: return x.clone();
  }
  return x.clone();
}

TEST(FusedActivation, MatchesStandaloneOpsInPlace) {
  const std::vector<fb::ActivationKind> kinds = {fb::ActivationKind::None,    fb::ActivationKind::Relu,
                                                 fb::ActivationKind::Clip,    fb::ActivationKind::HardSwish,
                                                 fb::ActivationKind::Sigmoid, fb::ActivationKind::LeakyRelu,
                                                 fb::ActivationKind::SiLU};
  for (fb::ActivationKind kind : kinds) {
    SCOPED_TRACE(fb::EnumNameActivationKind(kind));
    fb::FusedActivationT act;
    act.kind = kind;
    act.alpha = 0.2f;
    act.min = -0.5f;
    act.max = 6.0f;
    for (int64_t n : {int64_t{1}, int64_t{13}, int64_t{127}, int64_t{1000}}) {
      Tensor x = random_tensor(DType::F32, {n}, 11, -10.0, 10.0);
      Tensor data = x.clone();
      cpu::apply_fused_activation(&act, data.data<float>(), n);
      expect_tensors_near(data, reference_activation(act, x), 1e-5, 1e-6);
    }
  }
}

TEST(FusedActivation, NullIsANoOp) {
  Tensor x = random_tensor(DType::F32, {9}, 3);
  Tensor data = x.clone();
  cpu::apply_fused_activation(nullptr, data.data<float>(), data.numel());
  expect_tensors_near(data, x, 0, 0);
}

}  // namespace
}  // namespace mote::test
