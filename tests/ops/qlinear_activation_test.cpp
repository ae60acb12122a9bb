// QLinearActivation: the reference against hand-worked values, and the
// optimised kernel (a 256-entry table) against the reference, which it
// must equal exactly (both requantise in double), for every activation
// kind, both 8-bit types and threads.
#include "runtime/ops/qlinear_activation.hpp"

#include <string>
#include <vector>

#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/quant_inputs.hpp"

namespace mote::test {
namespace {

fb::OpT activation_op(fb::ActivationKind kind, float alpha = 0.0f) {
  return with_fused(make_op(fb::OpType::QLinearActivation), fused_activation(kind, alpha, -0.5f, 0.7f));
}

// Worked by hand. Sigmoid: real X = 0.05 (X - 128) = {-6.4, -3.2, 0, 3.2,
// 6.35}, sigmoid / (1/256) = {0.42, 10.03, 128, 245.97, 255.55}, saturated
// at 255. HardSwish: real X = 0.05 X = {-6.4, -3, 0, 3, 6.35}, x *
// clip(x / 6 + 0.5, 0, 1) = {0, 0, 0, 3, 6.35}, / 0.05 - 10.
TEST(QLinearActivationOps, ReferenceMatchesWorkedExamples) {
  const Inputs sigmoid =
      qunary_inputs(Tensor::from_vector<uint8_t>({5}, {0, 64, 128, 192, 255}), 0.05f, 128, 1.0f / 256, DType::U8, 0);
  const Inputs hard_swish =
      qunary_inputs(Tensor::from_vector<int8_t>({5}, {-128, -60, 0, 60, 127}), 0.05f, 0, 0.05f, DType::I8, -10);
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto s = run_op(activation_op(fb::ActivationKind::Sigmoid), sigmoid, impl);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    expect_tensors_near((*s)[0], Tensor::from_vector<uint8_t>({5}, {0, 10, 128, 246, 255}), 0, 0, impl_name(impl));
    auto h = run_op(activation_op(fb::ActivationKind::HardSwish), hard_swish, impl);
    ASSERT_TRUE(h.ok()) << h.status().to_string();
    expect_tensors_near((*h)[0], Tensor::from_vector<int8_t>({5}, {-10, -10, -10, 50, 117}), 0, 0, impl_name(impl));
  }
}

TEST(QLinearActivationOps, EveryKindMatchesReference) {
  int checked = 0;
  for (const fb::FusedActivationT& act : all_fused_activations()) {
    for (DType x_type : {DType::U8, DType::I8}) {
      const DType y_type = x_type == DType::U8 ? DType::I8 : DType::U8;
      SCOPED_TRACE(fused_name(act) + ", " + dtype_name(x_type) + " -> " + dtype_name(y_type));
      const fb::OpT op = with_fused(make_op(fb::OpType::QLinearActivation), act);
      const Inputs inputs =
          qunary_inputs(random_tensor(x_type, {2, 7, 33, 17}, static_cast<uint32_t>(checked),
                                      x_type == DType::I8 ? -128 : 0, x_type == DType::I8 ? 128 : 256),
                        0.04f, x_type == DType::I8 ? 5 : 120, 0.03f, y_type, y_type == DType::I8 ? -20 : 40);
      auto expected = run_op(op, inputs, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      EXPECT_GE(distinct_bytes((*expected)[0]), 20) << "outputs too uniform";
      for (int threads : {1, 2}) {
        auto actual = run_op(op, inputs, Impl::kCpu, threads);
        ASSERT_TRUE(actual.ok()) << actual.status().to_string();
        expect_tensors_near((*actual)[0], (*expected)[0], 0, 0, "threads " + std::to_string(threads));
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
}

TEST(QLinearActivationOps, RejectsBadParameters) {
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    SCOPED_TRACE(impl_name(impl));
    Inputs inputs = qunary_inputs(Tensor::from_vector<uint8_t>({2}, {1, 2}), 0.1f, 0, 0.0f, DType::U8, 0);
    auto out = run_op(activation_op(fb::ActivationKind::Relu), inputs, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("Y_scale"), std::string::npos) << out.status().to_string();
  }
}

}  // namespace
}  // namespace mote::test
