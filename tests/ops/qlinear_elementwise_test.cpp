// QLinearAdd, QLinearMul and QLinearConcat: the reference against hand-worked
// values, and the optimised kernels against the reference. QLinearAdd's and
// QLinearMul's kernels requantise in f32 (an output may differ by one
// quantum at a near-tie of the double requantisation); QLinearConcat's
// tables requantise in double and must equal the reference exactly.
#include "runtime/ops/qlinear_elementwise.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/core/shape_util.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/quant_inputs.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

void check_binary(fb::OpType type, const Shape& a, const Shape& b, DType t, const fb::FusedActivationT* act = nullptr,
                  uint32_t seed = 1) {
  SCOPED_TRACE(std::string(fb::EnumNameOpType(type)) + " " + shape_to_string(a) + " " + shape_to_string(b) + " " +
               dtype_name(t) + (act ? ", fused " + fused_name(*act) : ""));
  fb::OpT op = make_op(type);
  if (act) op = with_fused(std::move(op), *act);
  const Inputs inputs = qbinary_inputs(a, b, t, type == fb::OpType::QLinearMul, seed);
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& ref = (*expected)[0];
  // (A Clip leaves 1.2 / C_scale codes.)
  const int64_t spread = act ? 10 : std::min<int64_t>(ref.numel() / 4, 40);
  EXPECT_GE(distinct_bytes(ref), spread) << "outputs too uniform";
  for (int threads : {1, 2}) {
    auto actual = run_op(op, inputs, Impl::kCpu, threads);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], ref, 0.0, 1.0, "threads " + std::to_string(threads));
    const int64_t off = bytes_off((*actual)[0], ref);
    EXPECT_LE(off, 2 + ref.numel() / 200) << off << " of " << ref.numel() << " outputs off by one";
  }
}

// Worked by hand: real A = 0.05 (A - 128) = {-6.4, -3.9, 0, 3.6, 6.35},
// real B = 0.1 (B - 100) = {-9, 2.8, 15.5, -10, 0}; C = round(real / 0.3) +
// 100, saturated to [0, 255]: sums /0.3 = {-51.3, -3.7, 51.7, -21.3, 21.2},
// products /0.3 = {192, -36.4, 0, -120, 0}.
TEST(QLinearElementwiseOps, ReferenceMatchesWorkedExample) {
  const Inputs inputs = {Tensor::from_vector<uint8_t>({5}, {0, 50, 128, 200, 255}),
                         scalar_of(DType::F32, 0.05),
                         scalar_of(DType::U8, 128),
                         Tensor::from_vector<uint8_t>({5}, {10, 128, 255, 0, 100}),
                         scalar_of(DType::F32, 0.1),
                         scalar_of(DType::U8, 100),
                         scalar_of(DType::F32, 0.3),
                         scalar_of(DType::U8, 100)};
  const Tensor sum = Tensor::from_vector<uint8_t>({5}, {49, 96, 152, 79, 121});
  const Tensor product = Tensor::from_vector<uint8_t>({5}, {255, 64, 100, 0, 100});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto add = run_op(make_op(fb::OpType::QLinearAdd), inputs, impl);
    ASSERT_TRUE(add.ok()) << add.status().to_string();
    expect_tensors_near((*add)[0], sum, 0.0, 0.0, std::string("add, ") + impl_name(impl));
    auto mul = run_op(make_op(fb::OpType::QLinearMul), inputs, impl);
    ASSERT_TRUE(mul.ok()) << mul.status().to_string();
    expect_tensors_near((*mul)[0], product, 0.0, 0.0, std::string("mul, ") + impl_name(impl));
  }
}

// The broadcast layouts of the plan (same shapes, scalars, channel and row
// broadcasts either way round, both operands broadcast) with lengths that
// leave vector tails, on both types, one and two threads.
const std::vector<std::pair<Shape, Shape>>& binary_shapes() {
  static const std::vector<std::pair<Shape, Shape>> shapes = {
      {{1, 16, 9, 9}, {1, 16, 9, 9}},     {{3, 37}, {1}},  {{1}, {2, 45}},    {{1, 24, 7, 7}, {1, 24, 1, 1}},
      {{1, 8, 1, 1}, {1, 8, 5, 13}},      {{6, 33}, {33}}, {{5, 1}, {1, 19}}, {{2, 3, 4, 5}, {3, 1, 5}},
      {{1, 96, 56, 56}, {1, 96, 56, 56}},
  };
  return shapes;
}

TEST(QLinearElementwiseOps, AddAndMulMatchReference) {
  uint32_t seed = 1;
  for (fb::OpType type : {fb::OpType::QLinearAdd, fb::OpType::QLinearMul}) {
    for (const auto& [a, b] : binary_shapes()) {
      for (DType t : {DType::U8, DType::I8}) check_binary(type, a, b, t, nullptr, seed++);
    }
  }
}

TEST(QLinearElementwiseOps, AddAndMulEverySimdTargetMatchesReference) {
  for_each_simd_target([] {
    for (fb::OpType type : {fb::OpType::QLinearAdd, fb::OpType::QLinearMul}) {
      check_binary(type, {2, 8, 5, 7}, {2, 8, 5, 7}, DType::U8);
      check_binary(type, {1, 8, 5, 7}, {1, 8, 1, 1}, DType::I8, nullptr, 2);
      check_binary(type, {1}, {3, 41}, DType::U8, nullptr, 3);
    }
  });
}

// Relu and Clip narrow the output range (the kernel's clamp).
TEST(QLinearElementwiseOps, FusedReluAndClipMatchReference) {
  const std::vector<fb::FusedActivationT> acts = {fused_activation(fb::ActivationKind::Relu),
                                                  fused_activation(fb::ActivationKind::Clip, 0.0f, -0.5f, 0.7f)};
  for (const fb::FusedActivationT& act : acts) {
    for (fb::OpType type : {fb::OpType::QLinearAdd, fb::OpType::QLinearMul}) {
      check_binary(type, {1, 16, 9, 9}, {1, 16, 9, 9}, DType::U8, &act);
      check_binary(type, {4, 25}, {25}, DType::I8, &act, 5);
    }
  }
}

TEST(QLinearElementwiseOps, RejectsBadParameters) {
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    SCOPED_TRACE(impl_name(impl));
    Inputs zero_scale = qbinary_inputs({4}, {4}, DType::U8, false, 1);
    zero_scale[kQBinaryB.scale] = scalar_of(DType::F32, 0.0);
    auto out = run_op(make_op(fb::OpType::QLinearAdd), zero_scale, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("B_scale"), std::string::npos) << out.status().to_string();

    Inputs mixed = qbinary_inputs({4}, {4}, DType::U8, false, 1);
    mixed[kQBinaryB.data] = random_tensor(DType::I8, {4}, 2, -128, 128);
    mixed[kQBinaryB.zero] = scalar_of(DType::I8, 0);
    out = run_op(make_op(fb::OpType::QLinearMul), mixed, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("share one 8-bit type"), std::string::npos) << out.status().to_string();

    Inputs per_channel = qbinary_inputs({2, 4}, {2, 4}, DType::U8, false, 1);
    per_channel[kQBinaryA.scale] = Tensor::from_vector<float>({2}, {0.1f, 0.2f});
    out = run_op(make_op(fb::OpType::QLinearAdd), per_channel, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("A_scale"), std::string::npos) << out.status().to_string();
  }
}

fb::OpT concat_op(int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(fb::OpType::QLinearConcat, a);
}

// Worked by hand: Y (scale 0.1, zero 10) from X0 (scale 0.1, zero 10, a
// copy) and X1 = {0, 100, 255} with scale 0.2, zero 50: real {-10, 10,
// 41}, codes round(real / 0.1) + 10 = {-90, 110, 420} saturated.
TEST(QLinearElementwiseOps, ConcatReferenceMatchesWorkedExample) {
  const Inputs inputs = {
      scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 10), Tensor::from_vector<uint8_t>({1, 2}, {7, 200}),
      scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 10), Tensor::from_vector<uint8_t>({1, 3}, {0, 100, 255}),
      scalar_of(DType::F32, 0.2), scalar_of(DType::U8, 50)};
  const Tensor want = Tensor::from_vector<uint8_t>({1, 5}, {7, 200, 0, 110, 255});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(concat_op(1), inputs, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], want, 0.0, 0.0, impl_name(impl));
  }
}

// Inputs of both types, with Y's parameters (copied) and others (mapped),
// along every axis; the kernel must equal the reference exactly.
TEST(QLinearElementwiseOps, ConcatMatchesReference) {
  const Shape base = {2, 3, 5, 7};
  int checked = 0;
  for (int64_t axis : {0, 1, 2, 3, -1}) {
    for (DType y_type : {DType::U8, DType::I8}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + ", Y " + dtype_name(y_type));
      Inputs inputs = {scalar_of(DType::F32, 0.04), scalar_of(y_type, zero_of(y_type, 128))};
      const DType types[3] = {y_type, DType::U8, DType::I8};
      const double scales[3] = {0.04, 0.07, 0.02};
      for (int k = 0; k < 3; ++k) {
        Shape s = base;
        s[static_cast<size_t>(axis < 0 ? axis + 4 : axis)] += k;  // unequal extents
        inputs.push_back(random_codes(types[k], s, static_cast<uint32_t>(7 * k + axis + 10)));
        inputs.push_back(scalar_of(DType::F32, scales[k]));
        inputs.push_back(scalar_of(types[k], k == 0 ? zero_of(y_type, 128) : zero_of(types[k], 100)));
      }
      auto expected = run_op(concat_op(axis), inputs, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      EXPECT_GE(distinct_bytes((*expected)[0]), 150);
      for (int threads : {1, 2}) {
        auto actual = run_op(concat_op(axis), inputs, Impl::kCpu, threads);
        ASSERT_TRUE(actual.ok()) << actual.status().to_string();
        expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 0.0, "threads " + std::to_string(threads));
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 10);
}

TEST(QLinearElementwiseOps, ConcatRejectsBadInputs) {
  const Inputs good = {scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 0),
                       Tensor::from_vector<uint8_t>({1, 2}, {1, 2}), scalar_of(DType::F32, 0.1),
                       scalar_of(DType::U8, 0)};
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    SCOPED_TRACE(impl_name(impl));
    ASSERT_TRUE(run_op(concat_op(1), good, impl).ok());
    Inputs short_triple = good;
    short_triple.pop_back();
    auto out = run_op(concat_op(1), short_triple, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("triple"), std::string::npos) << out.status().to_string();
    Inputs bad_scale = good;
    bad_scale.push_back(Tensor::from_vector<uint8_t>({1, 1}, {3}));
    bad_scale.push_back(scalar_of(DType::F32, -1.0));
    bad_scale.push_back(scalar_of(DType::U8, 0));
    out = run_op(concat_op(1), bad_scale, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("X1_scale"), std::string::npos) << out.status().to_string();
    Inputs bad_shape = good;
    bad_shape.push_back(Tensor::from_vector<uint8_t>({2, 1}, {3, 4}));
    bad_shape.push_back(scalar_of(DType::F32, 0.1));
    bad_shape.push_back(scalar_of(DType::U8, 0));
    out = run_op(concat_op(1), bad_shape, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("outside axis"), std::string::npos) << out.status().to_string();
  }
}

}  // namespace
}  // namespace mote::test
