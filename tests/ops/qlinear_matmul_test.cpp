// QLinearMatMul: the reference against ONNX's own example, and the
// optimised int8 kernel (qgemm with B packed once) against the reference
// (exact integer sums, requantised in double). As QLinearConv's test: an
// output may differ by one quantum at a near-tie of the float
// requantisation; anything further fails.
#include "runtime/ops/qlinear_matmul.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/shape_util.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/qlinear_matmul_cases.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

void check(const MatMulCase& c, const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  SCOPED_TRACE(label(c) + (act ? ", fused " + fused_name(*act) : ""));
  fb::OpT op = make_op(fb::OpType::QLinearMatMul);
  if (act) op = with_fused(std::move(op), *act);
  const Inputs inputs = matmul_inputs(c, seed);
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& ref = (*expected)[0];
  if (ref.numel() >= 16) EXPECT_GE(distinct_bytes(ref), std::min<int64_t>(ref.numel() / 4, 24)) << "too uniform";
  for (int threads : {1, 2}) {
    auto actual = run_op(op, inputs, Impl::kCpu, threads);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], ref, 0.0, 1.0, "threads " + std::to_string(threads));
    const int64_t off = bytes_off((*actual)[0], ref);
    EXPECT_LE(off, 2 + ref.numel() / 200) << off << " of " << ref.numel() << " outputs off by one";
  }
}

// ONNX's example for QLinearMatMul (its operator documentation): u8
// operands, per-tensor parameters.
TEST(QLinearMatMulOps, ReferenceMatchesOnnxExample) {
  const Inputs inputs = {
      Tensor::from_vector<uint8_t>({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}),
      scalar_of(DType::F32, 0.0066),
      scalar_of(DType::U8, 113),
      Tensor::from_vector<uint8_t>({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}),
      scalar_of(DType::F32, 0.00705),
      scalar_of(DType::U8, 114),
      scalar_of(DType::F32, 0.0107),
      scalar_of(DType::U8, 118)};
  const Tensor want = Tensor::from_vector<uint8_t>({2, 3}, {168, 115, 255, 1, 66, 151});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(fb::OpType::QLinearMatMul), inputs, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], want, 0.0, 0.0, impl_name(impl));
  }
}

// Every dtype combination on shapes that reach the kernel's paths: one row
// (the GEMM's column products), depths that are and are not multiples of 4
// (A's rows transposed as words, or gathered), row counts around the
// GEMM's column step and tiles, and more columns than a panel of weights.
TEST(QLinearMatMulOps, CpuMatchesReference) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{1, 64}, {64, 40}},    {{2, 7}, {7, 5}},    {{5, 64}, {64, 33}}, {{37, 129}, {129, 70}},
      {{64, 256}, {256, 24}}, {{33, 96}, {96, 9}}, {{3, 3}, {3, 1}},    {{70, 30}, {30, 130}},
  };
  int checked = 0;
  for (size_t s = 0; s < shapes.size(); ++s) {
    for (DType a : {DType::U8, DType::I8}) {
      for (DType b : {DType::I8, DType::U8}) {
        const DType y = (s + static_cast<size_t>(a) + static_cast<size_t>(b)) % 2 ? DType::I8 : DType::U8;
        check(
            {shapes[s].first, shapes[s].second, a, b, y, (s % 2) == 0, false, (s + static_cast<size_t>(a)) % 3 == 0},
            nullptr, static_cast<uint32_t>(11 * s + 3 * static_cast<int>(a) + static_cast<int>(b)));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 32);
}

// The same on every SIMD target the tests compile (AVX2's byte pairs with
// 7-bit weights, int16 pairs, the portable targets; VNNI's quads, compiled
// for the GEMM alone, run in CpuMatchesReference, on this CPU's own).
TEST(QLinearMatMulOps, EverySimdTargetMatchesReference) {
  for_each_simd_target([] {
    check({{9, 68}, {68, 20}});
    check({{40, 27}, {27, 17}, DType::I8, DType::I8, DType::I8, false});
    check({{9, 68}, {68, 20}, DType::U8, DType::I8, DType::U8, true, true});
    check({{1, 100}, {100, 12}, DType::I8, DType::I8, DType::U8, true, true});
    check({{20, 36}, {36, 10}, DType::U8, DType::I8, DType::U8, true, false, true});
  });
}

// numpy matmul's shapes: batches of A against one B, a batched B broadcast
// against A's batch, 1-D operands.
TEST(QLinearMatMulOps, BatchesAndVectorsMatchReference) {
  check({{2, 3, 9, 20}, {20, 11}});
  check({{2, 3, 9, 20}, {20, 11}, DType::U8, DType::I8, DType::I8, true, false, true});
  check({{2, 1, 5, 8}, {3, 8, 6}});
  check({{4, 6, 12}, {4, 12, 7}, DType::I8, DType::I8, DType::U8});
  check({{24}, {24, 9}});
  check({{6, 24}, {24}, DType::U8, DType::I8, DType::U8, false});
}

TEST(QLinearMatMulOps, FusedClampMatchesReference) {
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  for (const auto* act : {&relu, &clip}) check({{20, 64}, {64, 24}}, act);
}

// HardSwish and SiLU, applied by the requantising store to the real value.
TEST(QLinearMatMulOps, FusedHardSwishAndSiluMatchReference) {
  const fb::FusedActivationT hard_swish = fused_activation(fb::ActivationKind::HardSwish);
  const fb::FusedActivationT silu = fused_activation(fb::ActivationKind::SiLU);
  for (const auto* act : {&hard_swish, &silu}) {
    check({{20, 64}, {64, 24}}, act);
    check({{1, 64}, {64, 24}}, act, 2);  // one row: the column products' scalar store
    check({{5, 30}, {30, 9}, DType::I8, DType::I8, DType::I8, true, false, true}, act, 3);
  }
}

// A model prepared for one row count run at another.
TEST(QLinearMatMulOps, PreparedForOneSizeRunsAnother) {
  const MatMulCase prepared_case{{4, 32}, {32, 10}};
  const MatMulCase run_case{{13, 32}, {32, 10}};
  const Inputs prepared = matmul_inputs(prepared_case, 5);
  Inputs run = matmul_inputs(run_case, 5);
  const fb::OpT op = make_op(fb::OpType::QLinearMatMul);
  auto expected = run_op(op, run, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  for (int threads : {1, 2}) {
    auto actual = run_op(op, run, Impl::kCpu, threads, &prepared);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 1.0, "threads " + std::to_string(threads));
  }
}

TEST(QLinearMatMulOps, RejectsBadParameters) {
  Inputs inputs = matmul_inputs({{3, 8}, {8, 5}}, 1);
  inputs[4] = random_tensor(DType::F32, {2}, 3, 0.1, 0.2);  // neither one nor one per column
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(fb::OpType::QLinearMatMul), inputs, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("b_scale has shape 2; expected one value or one per column of b (5)"),
              std::string::npos)
        << out.status().to_string();
  }
  inputs = matmul_inputs({{3, 8}, {8, 5}}, 1);
  inputs.push_back(random_tensor(DType::I32, {4}, 3, -10, 10));  // one short
  auto short_bias = run_op(make_op(fb::OpType::QLinearMatMul), inputs, Impl::kCpu);
  ASSERT_FALSE(short_bias.ok());
  EXPECT_NE(short_bias.status().message().find("bias has shape 4; expected [5] (one per column of b)"),
            std::string::npos)
      << short_bias.status().to_string();
  inputs = matmul_inputs({{3, 8}, {8, 5}}, 1);
  inputs[2] = scalar_of(DType::I8, 0);  // a is u8
  auto out = run_op(make_op(fb::OpType::QLinearMatMul), inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("a_zero_point has dtype i8; expected a's"), std::string::npos)
      << out.status().to_string();
}

// A NaN, infinite, zero or negative scale is refused, naming it.
TEST(QLinearMatMulOps, RejectsUnusableScales) {
  const Inputs good = matmul_inputs({{3, 8}, {8, 5}}, 2);
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    ASSERT_TRUE(run_op(make_op(fb::OpType::QLinearMatMul), good, impl).ok());
    for (double bad : {std::nan(""), HUGE_VAL, 0.0, -0.1}) {
      for (auto [index, name] : {std::pair<size_t, std::string>{1, "a_scale"}, {4, "b_scale"}, {6, "y_scale"}}) {
        Inputs inputs = good;
        inputs[index] = scalar_of(DType::F32, bad);
        auto out = run_op(make_op(fb::OpType::QLinearMatMul), inputs, impl);
        ASSERT_FALSE(out.ok()) << name << " " << bad;
        EXPECT_NE(out.status().message().find(name + " is "), std::string::npos) << out.status().to_string();
      }
    }
  }
}

// MatMulInteger: exact int32 sums, so the kernel must equal the reference.
// ONNX's own example first (u8 operands, a zero point on A only).
TEST(MatMulIntegerOps, MatchesOnnxExample) {
  const Inputs inputs = {Tensor::from_vector<uint8_t>({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}),
                         Tensor::from_vector<uint8_t>({3, 2}, {1, 4, 2, 5, 3, 6}), scalar_of(DType::U8, 12),
                         scalar_of(DType::U8, 0)};
  const Tensor want = Tensor::from_vector<int32_t>({4, 2}, {-38, -83, -44, -98, -50, -113, -56, -128});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(fb::OpType::MatMulInteger), inputs, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], want, 0.0, 0.0, impl_name(impl));
  }
}

// Every dtype pair, zero points absent, per tensor and per column, on the
// shapes of the kernel's paths, on this CPU's own instruction set (VNNI's
// byte quads where it has them: for_each_simd_target covers only the
// targets the tests compile, AVX3_DL not among them) and on every target;
// a depth of 1,000 at the operands' extremes, where f32 sums (the float
// graph the converter wrote before) are no longer exact.
TEST(MatMulIntegerOps, CpuEqualsReference) {
  struct Case {
    Shape a, b;
    DType a_type, b_type;
    // 0: none, 1: per tensor, 2: A per tensor and B per column, 3: A's only
    // (B's bytes then fit int8 as they are: the byte quads, with A's zero
    // point taken off through the bias); 4: as 3 with B in [-64, 63] (the
    // byte pairs of x86 CPUs without VNNI)
    int zero_points;
  };
  const std::vector<Case> cases = {
      {{1, 64}, {64, 40}, DType::U8, DType::I8, 1},      {{5, 30}, {30, 9}, DType::I8, DType::I8, 0},
      {{37, 129}, {129, 70}, DType::U8, DType::U8, 2},   {{2, 3, 9, 20}, {20, 11}, DType::I8, DType::U8, 2},
      {{4, 6, 12}, {4, 12, 7}, DType::U8, DType::I8, 1}, {{3, 1000}, {1000, 5}, DType::U8, DType::I8, 1},
      {{9, 68}, {68, 20}, DType::U8, DType::I8, 3},      {{40, 32}, {32, 17}, DType::I8, DType::I8, 3},
      {{1, 32}, {32, 17}, DType::I8, DType::I8, 3},      {{20, 48}, {48, 9}, DType::U8, DType::I8, 4},
  };
  const auto check_all = [&] {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      SCOPED_TRACE("A " + shape_to_string(c.a) + " " + dtype_name(c.a_type) + ", B " + shape_to_string(c.b) + " " +
                   dtype_name(c.b_type) + ", zero points " + std::to_string(c.zero_points));
      const int64_t n = c.b.back();
      const auto seed = static_cast<uint32_t>(7 * i);
      const bool extreme = c.a[1] == 1000;
      Inputs inputs = {random_tensor(c.a_type, c.a, seed, extreme ? code_high(c.a_type) - 1 : code_low(c.a_type),
                                     code_high(c.a_type)),
                       c.zero_points == 4 ? random_tensor(c.b_type, c.b, seed + 1, -64, 64)
                                          : random_tensor(c.b_type, c.b, seed + 1, code_low(c.b_type),
                                                          extreme ? code_low(c.b_type) + 1 : code_high(c.b_type))};
      if (c.zero_points > 0) {
        inputs.push_back(scalar_of(c.a_type, extreme ? code_low(c.a_type) : (c.a_type == DType::I8 ? 3 : 120)));
        inputs.push_back(c.zero_points == 2
                             ? random_tensor(c.b_type, {n}, seed + 2, code_low(c.b_type), code_high(c.b_type))
                         : c.zero_points >= 3 ? scalar_of(c.b_type, c.b_type == DType::I8 ? 0 : 128)
                                              : scalar_of(c.b_type, c.b_type == DType::I8 ? -2 : 130));
      }
      const fb::OpT op = make_op(fb::OpType::MatMulInteger);
      auto expected = run_op(op, inputs, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      for (int threads : {1, 2}) {
        auto actual = run_op(op, inputs, Impl::kCpu, threads);
        ASSERT_TRUE(actual.ok()) << actual.status().to_string();
        expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 0.0, "threads " + std::to_string(threads));
      }
      if (extreme) {
        // |sum| beyond 2^24: where float sums would have rounded.
        EXPECT_GT(std::abs((*expected)[0].data<int32_t>()[0]), 1 << 24);
      }
    }
  };
  check_all();
  for_each_simd_target(check_all);
}

// A's zero point computed per run (DynamicQuantizeLinear's, in
// onnxruntime's quantize_dynamic models): B is packed at prepare, and a run
// with another zero point than prepare saw must use its own (the bias of
// the byte quads, the shift of the int16 pairs), on this CPU's own target
// and every other (B in [-64, 63] takes the quads of the x86 targets
// without VNNI too).
TEST(MatMulIntegerOps, AZeroPointOtherThanPreparedIsUsed) {
  const auto check_all = [] {
    for (bool per_column : {false, true}) {  // per-column B zero points: the int16 pairs
      for (bool seven_bit : {false, true}) {
        SCOPED_TRACE(std::string(per_column ? "B per column" : "B per tensor") +
                     (seven_bit ? ", B in [-64, 63]" : ""));
        const Tensor a = random_tensor(DType::U8, {13, 40}, 1, 0, 256);
        const Tensor b = random_tensor(DType::I8, {40, 11}, 2, seven_bit ? -64 : -128, seven_bit ? 64 : 128);
        const Tensor b_zero = per_column ? random_tensor(DType::I8, {11}, 3, -20, 20) : scalar_of(DType::I8, 0);
        const Inputs prepared = {a, b, scalar_of(DType::U8, 7), b_zero};
        const Inputs run = {a, b, scalar_of(DType::U8, 131), b_zero};
        const fb::OpT op = make_op(fb::OpType::MatMulInteger);
        auto expected = run_op(op, run, Impl::kReference);
        ASSERT_TRUE(expected.ok()) << expected.status().to_string();
        for (int threads : {1, 2}) {
          auto actual = run_op(op, run, Impl::kCpu, threads, &prepared);
          ASSERT_TRUE(actual.ok()) << actual.status().to_string();
          expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 0.0, "threads " + std::to_string(threads));
        }
      }
    }
  };
  check_all();
  for_each_simd_target(check_all);
}

// A depth of 0: every sum is its bias (QLinearMatMul's requantised, or
// MatMulInteger's 0s), as the reference gives.
TEST(MatMulIntegerOps, NoDepthGivesTheBias) {
  const Inputs integer = {Tensor::zeros(DType::U8, {3, 0}), Tensor::zeros(DType::I8, {0, 5}),
                          scalar_of(DType::U8, 9)};
  MatMulCase c{{3, 0}, {0, 5}};
  c.bias = true;
  Inputs qlinear = matmul_inputs(c, 4);
  qlinear[kQmYScale] = scalar_of(DType::F32, 0.5);  // (the case's scale follows the depth)
  for (const auto& [op, inputs] : {std::pair{make_op(fb::OpType::MatMulInteger), integer},
                                   std::pair{make_op(fb::OpType::QLinearMatMul), qlinear}}) {
    auto expected = run_op(op, inputs, Impl::kReference);
    ASSERT_TRUE(expected.ok()) << expected.status().to_string();
    auto actual = run_op(op, inputs, Impl::kCpu);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 0.0);
  }
}

TEST(MatMulIntegerOps, RejectsBadZeroPoints) {
  Inputs inputs = {random_tensor(DType::U8, {3, 8}, 1, 0, 256), random_tensor(DType::I8, {8, 5}, 2, -128, 128),
                   random_tensor(DType::U8, {3}, 3, 0, 256)};  // one per row of A: Mote takes one value
  auto out = run_op(make_op(fb::OpType::MatMulInteger), inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("a_zero_point has shape 3; expected one value"), std::string::npos)
      << out.status().to_string();
  inputs[2] = Tensor::zeros(DType::U8, {0});  // empty: no value to read
  out = run_op(make_op(fb::OpType::MatMulInteger), inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("a_zero_point has shape 0; expected one value"), std::string::npos)
      << out.status().to_string();
  inputs[2] = scalar_of(DType::I8, 0);  // A is u8
  out = run_op(make_op(fb::OpType::MatMulInteger), inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("a_zero_point has dtype i8; expected A's"), std::string::npos)
      << out.status().to_string();
}

}  // namespace
}  // namespace mote::test
