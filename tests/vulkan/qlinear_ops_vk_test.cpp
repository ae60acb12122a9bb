// The int8 ops beside QLinearConv on Vulkan, against the reference kernels:
// QLinearActivation and QLinearConcat (tables the host builds as the CPU
// kernels do: exactly equal), QLinearAdd and QLinearMul (f32 arithmetic:
// an output may be one quantum off at a near-tie of the double
// requantisation, a handful in a thousand at most), the QLinear average
// pools (exact integer sums, the mean requantised in f32: the same
// allowance), MaxPool and nearest Resize on 8-bit codes (exact), linear
// Resize on codes (the same allowance), QuantizeLinear and
// DequantizeLinear. Data are graph inputs, the
// parameters constants. On lavapipe the shaders run only with
// MOTE_VK_FORCE_INT8=1 (CTest's vulkan_int8_forced does that).
#include <limits>
#include <string>
#include <vector>

#include "runtime/ops/qlinear_elementwise.hpp"
#include "runtime/ops/qlinear_matmul.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/qlinear_matmul_cases.hpp"
#include "tests/support/quant_inputs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

enum class Match { kExact, kNearTies };

// Runs `op` on Vulkan in both storage modes (bytes are bytes in either) with
// the inputs in `data` as graph inputs, and expects it on the GPU and its
// output as the reference's.
void expect_vulkan_int8(const fb::OpT& op, const Inputs& inputs, std::vector<size_t> data, Match match) {
  uint32_t constant_mask = ~0u;
  for (size_t i : data) constant_mask &= ~(1u << i);
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& ref = (*expected)[0];
  EXPECT_GE(distinct_bytes(ref), std::min<int64_t>(ref.numel() / 4, 20)) << "outputs too uniform";
  for (GpuPrecision precision : {GpuPrecision::kF32, GpuPrecision::kF16Storage}) {
    auto actual = run_op_vulkan(op, inputs, precision, constant_mask);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    ASSERT_FALSE(actual->placement.empty());
    ASSERT_EQ(actual->placement[0].device, "vulkan") << actual->placement[0].reason;
    expect_tensors_near(actual->outputs[0], ref, 0.0, match == Match::kExact ? 0.0 : 1.0);
    const int64_t off = bytes_off(actual->outputs[0], ref);
    EXPECT_LE(off, 2 + ref.numel() / 200) << off << " of " << ref.numel() << " outputs off by one";
  }
}

// Every fused kind, both types, X's size not a multiple of four (the last
// word's spare bytes).
TEST(QLinearOpsVk, ActivationEqualsReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  uint32_t seed = 1;
  for (const fb::FusedActivationT& act : all_fused_activations()) {
    for (DType x_type : {DType::U8, DType::I8}) {
      const DType y_type = x_type == DType::U8 ? DType::I8 : DType::U8;
      SCOPED_TRACE(fused_name(act) + ", " + dtype_name(x_type));
      const Inputs inputs = qunary_inputs(random_codes(x_type, {1, 5, 9, 11}, seed++), 0.04f, zero_of(x_type, 125),
                                          0.03f, y_type, zero_of(y_type, 150));
      expect_vulkan_int8(with_fused(make_op(fb::OpType::QLinearActivation), act), inputs, {0}, Match::kExact);
    }
  }
}

// Broadcasts of every kind (scalar, per channel, rows, both ways), both
// types, Relu and Clip, an odd element count.
TEST(QLinearOpsVk, AddAndMulMatchReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 8, 5, 7}, {2, 8, 5, 7}},
      {{1, 16, 6, 6}, {1, 16, 1, 1}},
      {{3, 1, 9}, {1, 4, 9}},
      {{1, 6, 7, 5}, {1}},
      {{5, 1}, {1, 33}},
  };
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -1.0f, 1.5f);
  uint32_t seed = 1;
  for (fb::OpType type : {fb::OpType::QLinearAdd, fb::OpType::QLinearMul}) {
    for (const auto& [a, b] : shapes) {
      for (DType t : {DType::U8, DType::I8}) {
        for (const fb::FusedActivationT* act : {static_cast<const fb::FusedActivationT*>(nullptr), &relu, &clip}) {
          SCOPED_TRACE(testing::Message()
                       << fb::EnumNameOpType(type) << " " << shape_to_string(a) << " " << shape_to_string(b) << " "
                       << dtype_name(t) << " " << (act ? fused_name(*act) : ""));
          fb::OpT op = make_op(type);
          if (act) op = with_fused(std::move(op), *act);
          expect_vulkan_int8(op, qbinary_inputs(a, b, t, type == fb::OpType::QLinearMul, seed++),
                             {kQBinaryA.data, kQBinaryB.data}, Match::kNearTies);
        }
      }
    }
  }
}

// Inputs copied (Y's parameters) and mapped, both types, along the channel
// axis of planes of 2 x 6 (whole words) and along the last axis of rows of
// 4 and 8.
TEST(QLinearOpsVk, ConcatEqualsReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  for (auto [axis, base] : {std::pair<int64_t, Shape>{1, {2, 3, 2, 6}}, {-1, {3, 5, 4}}}) {
    for (DType y_type : {DType::U8, DType::I8}) {
      SCOPED_TRACE(testing::Message() << "axis " << axis << ", Y " << dtype_name(y_type));
      fb::AxisAttrsT attrs;
      attrs.axis = axis;
      Inputs inputs = {scalar_of(DType::F32, 0.04), scalar_of(y_type, zero_of(y_type, 128))};
      const DType types[3] = {y_type, DType::U8, DType::I8};
      const double scales[3] = {0.04, 0.07, 0.02};
      std::vector<size_t> data;
      for (int k = 0; k < 3; ++k) {
        Shape s = base;
        s[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis)] *= k + 1;
        data.push_back(inputs.size());
        inputs.push_back(random_codes(types[k], s, static_cast<uint32_t>(7 * k + 3)));
        inputs.push_back(scalar_of(DType::F32, scales[k]));
        inputs.push_back(scalar_of(types[k], k == 0 ? zero_of(y_type, 128) : zero_of(types[k], 100)));
      }
      expect_vulkan_int8(make_op(fb::OpType::QLinearConcat, attrs), inputs, data, Match::kExact);
    }
  }
}

// A concatenation whose rows split words stays on the CPU, saying why.
TEST(QLinearOpsVk, ConcatOfPartialWordsRunsOnCpu) {
  MOTE_REQUIRE_INT8_SHADERS();
  fb::AxisAttrsT attrs;
  attrs.axis = 1;
  const Inputs inputs = {scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 10), random_codes(DType::U8, {2, 3}, 1),
                         scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 10), random_codes(DType::U8, {2, 5}, 2),
                         scalar_of(DType::F32, 0.2), scalar_of(DType::U8, 50)};
  auto actual =
      run_op_vulkan(make_op(fb::OpType::QLinearConcat, attrs), inputs, GpuPrecision::kF32, ~0u & ~(1u << 2));
  ASSERT_TRUE(actual.ok()) << actual.status().to_string();
  ASSERT_FALSE(actual->placement.empty());
  EXPECT_EQ(actual->placement[0].device, "cpu");
  EXPECT_NE(actual->placement[0].reason.find("whole 32-bit words"), std::string::npos) << actual->placement[0].reason;
}

// The pool attribute variants every pool kernel is tested on, 1-D and 3-D,
// both types; the global pool over 2-D and 1-D planes.
TEST(QLinearOpsVk, AveragePoolsMatchReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  uint32_t seed = 1;
  for (const PoolParams& p : pool_attribute_variants()) {
    for (DType x_type : {DType::U8, DType::I8}) {
      const DType y_type = x_type == DType::U8 ? DType::I8 : DType::U8;
      SCOPED_TRACE(testing::Message() << "count_include_pad " << p.count_include_pad << ", " << dtype_name(x_type));
      expect_vulkan_int8(pool_op(fb::OpType::QLinearAveragePool, p),
                         qpool_inputs({2, 3, 9, 10}, x_type, y_type, seed++), {0}, Match::kNearTies);
    }
  }
  PoolParams one_d{{3}, {2}, {1, 1}};
  one_d.count_include_pad = true;
  expect_vulkan_int8(pool_op(fb::OpType::QLinearAveragePool, one_d),
                     qpool_inputs({1, 4, 17}, DType::U8, DType::U8, 7), {0}, Match::kNearTies);
  expect_vulkan_int8(pool_op(fb::OpType::QLinearAveragePool, PoolParams{{2, 2, 2}, {1, 2, 2}}),
                     qpool_inputs({1, 2, 4, 6, 6}, DType::I8, DType::I8, 8), {0}, Match::kNearTies);
  for (const Shape& x : {Shape{2, 5, 7, 9}, Shape{3, 6, 13}}) {
    SCOPED_TRACE("global " + shape_to_string(x));
    expect_vulkan_int8(make_op(fb::OpType::QLinearGlobalAveragePool), qpool_inputs(x, DType::U8, DType::I8, 9), {0},
                       Match::kNearTies);
  }
}

// MaxPool on codes (an int8 model's pass-through pool), both types, the
// attribute variants; with its Indices output it stays on the CPU.
TEST(QLinearOpsVk, MaxPoolOfCodesEqualsReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  uint32_t seed = 1;
  for (const PoolParams& p : pool_attribute_variants()) {
    if (p.count_include_pad) continue;  // (max ignores it)
    for (DType t : {DType::U8, DType::I8}) {
      SCOPED_TRACE(dtype_name(t));
      expect_vulkan_int8(pool_op(fb::OpType::MaxPool, p), {random_codes(t, {1, 4, 11, 10}, seed++)}, {0},
                         Match::kExact);
    }
  }
}

fb::OpT quantize_op(fb::OpType type, int64_t axis) {
  fb::QuantizeAttrsT a;
  a.axis = axis;
  return make_op(type, a);
}

// Per tensor and per axis (first, middle, last), both types, values past
// the range and NaNs; the scale and zero point constants. Quantising
// divides in f32 (one quantum off at near-ties); dequantising is one exact
// product, within the storage's rounding.
TEST(QLinearOpsVk, QuantizeAndDequantizeMatchReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  const Shape shape = {2, 3, 5, 6};
  const uint32_t params_constant = 0b110;
  for (DType t : {DType::U8, DType::I8}) {
    for (int64_t axis : {-1, 0, 1, 3}) {
      SCOPED_TRACE(testing::Message() << dtype_name(t) << ", axis " << axis);
      const int64_t count = axis < 0 ? 1 : shape[static_cast<size_t>(axis)];
      const Shape param_shape = axis < 0 ? Shape{} : Shape{count};
      Tensor scale = random_tensor(DType::F32, param_shape, 5, 0.01, 0.05);
      Tensor zero = random_tensor(t, param_shape, 6, zero_of(t, 100), zero_of(t, 150));
      Tensor x = random_tensor(DType::F32, shape, 7, -4.0, 4.0);
      x.data<float>()[3] = std::numeric_limits<float>::quiet_NaN();
      x.data<float>()[11] = 1e6f;
      const int64_t op_axis = axis < 0 ? 1 : axis;
      expect_vulkan_matches_reference(quantize_op(fb::OpType::QuantizeLinear, op_axis), {x, scale, zero},
                                      Tolerance{0.0, 1.0, 0.0, 1.0}, params_constant);
      expect_vulkan_matches_reference(quantize_op(fb::OpType::DequantizeLinear, op_axis),
                                      {random_codes(t, shape, 8), scale, zero}, Tolerance{}, params_constant);
    }
  }
}

// Resize of codes (an int8 model's resampling): nearest (exact) and linear
// (f32 sums: one code apart at a near-tie), both types, up and down, sizes
// whose output is not whole words.
TEST(QLinearOpsVk, ResizeOfCodesMatchesReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  uint32_t seed = 1;
  for (fb::ResizeMode mode : {fb::ResizeMode::Nearest, fb::ResizeMode::Linear}) {
    fb::ResizeAttrsT a;
    a.mode = mode;
    a.coordinate_transformation_mode =
        mode == fb::ResizeMode::Nearest ? fb::CoordinateTransform::Asymmetric : fb::CoordinateTransform::HalfPixel;
    a.nearest_mode = fb::NearestMode::Floor;
    const fb::OpT op = make_op(fb::OpType::Resize, a);
    for (DType t : {DType::U8, DType::I8}) {
      const Tensor x = random_codes(t, {1, 3, 7, 5}, seed++);
      for (const std::vector<float>& s : {std::vector<float>{1, 1, 2, 2}, {1, 1, 0.6f, 1.7f}}) {
        SCOPED_TRACE(testing::Message() << fb::EnumNameResizeMode(mode) << " " << dtype_name(t) << " scales " << s[2]
                                        << " x " << s[3]);
        expect_vulkan_int8(op, {x, std::nullopt, Tensor::from_vector<float>({4}, s)}, {0},
                           mode == fb::ResizeMode::Nearest ? Match::kExact : Match::kNearTies);
      }
    }
  }
}

// QLinearMatMul with a constant B: the four type pairs, per-tensor and
// per-column B, bias, batches of A, fused Relu, Clip, HardSwish and SiLU;
// depths that are multiples of 4 (the dot-product shader where the device
// has it) and others (the portable one). CTest also runs this with the
// dot product switched off (MOTE_VK_DISABLE=dot).
TEST(QLinearOpsVk, MatMulWithConstantBMatchesReference) {
  MOTE_REQUIRE_INT8_SHADERS();
  std::vector<MatMulCase> cases;
  for (DType a_type : {DType::U8, DType::I8}) {
    for (DType b_type : {DType::U8, DType::I8}) {
      MatMulCase c;
      c.a = {6, 32};
      c.b = {32, 10};
      c.a_type = a_type;
      c.b_type = b_type;
      c.y_type = a_type == DType::U8 ? DType::I8 : DType::U8;
      cases.push_back(c);
      c.a = {2, 3, 27};  // a depth of 27: not whole words
      c.b = {27, 9};
      c.per_column = false;
      c.bias = true;
      cases.push_back(c);
    }
  }
  MatMulCase deep;
  deep.a = {3, 1, 520};
  deep.b = {520, 33};
  deep.bias = true;
  cases.push_back(deep);
  uint32_t seed = 1;
  for (const MatMulCase& c : cases) {
    SCOPED_TRACE(label(c));
    expect_vulkan_int8(make_op(fb::OpType::QLinearMatMul), matmul_inputs(c, seed++), {kQmA}, Match::kNearTies);
  }
  MatMulCase c = cases.front();
  c.a = {16, 32};
  c.b = {32, 24};
  for (const fb::FusedActivationT& act :
       {fused_activation(fb::ActivationKind::Relu), fused_activation(fb::ActivationKind::Clip, 0.0f, -4.0f, 5.0f),
        fused_activation(fb::ActivationKind::HardSwish), fused_activation(fb::ActivationKind::SiLU)}) {
    SCOPED_TRACE(fused_name(act));
    expect_vulkan_int8(with_fused(make_op(fb::OpType::QLinearMatMul), act), matmul_inputs(c, seed++), {kQmA},
                       Match::kNearTies);
  }
}

}  // namespace
}  // namespace mote::test
