#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/support/op_test_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

const fb::OpType kWindowPools[] = {fb::OpType::MaxPool, fb::OpType::AveragePool};

TEST(PoolOps, Common2dCasesCpuMatchesReference) {
  // The CNN layers: 3x3 and 2x2 windows, strides 1 and 2, with and without padding.
  const PoolParams cases[] = {
      {{3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}},
      {{3, 3}, {2, 2}},
      {{2, 2}, {2, 2}},
      {{2, 2}, {1, 1}},
      {{3, 3}, {1, 1}},
      {{2, 2}, {2, 2}, {0, 0, 1, 1}},
  };
  for (fb::OpType type : kWindowPools) {
    for (const PoolParams& p : cases) {
      for (int64_t n : odd_sizes()) {
        const int64_t h = std::max<int64_t>(n, 3);
        expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {2, 3, h, n + 2}, 1)});
        expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {1, n, 5, 7}, 2)});
      }
      // Wide rows: many full SIMD vectors per output row.
      expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {1, 2, 9, 300}, 3)});
    }
  }
}

// Rows shorter than a vector (13 outputs of SqueezeNet's last pool) and rows
// ending in a partial vector, on every SIMD target: their last outputs are
// stored masked, lane by lane or through the stack, by target.
TEST(PoolOps, ShortRowsEverySimdTargetCpuMatchesReference) {
  for_each_simd_target([] {
    for (fb::OpType type : kWindowPools) {
      for (int64_t w : {3, 7, 13, 27}) {
        expect_cpu_matches_reference(pool_op(type, {{3, 3}, {2, 2}}), {random_tensor(DType::F32, {1, 3, 9, w}, 21)});
        expect_cpu_matches_reference(pool_op(type, {{3, 3}, {1, 1}, {1, 1, 1, 1}}),
                                     {random_tensor(DType::F32, {2, 2, 5, w}, 22)});
      }
    }
  });
}

TEST(PoolOps, AttributeVariantsCpuMatchesReference) {
  PoolParams dilated{{3, 2}, {1, 2}, {2, 1, 1, 0}, {2, 3}};
  PoolParams stride3{{3, 3}, {3, 3}, {1, 2, 2, 1}};
  PoolParams rect{{1, 4}, {2, 1}, {0, 2, 0, 3}};
  PoolParams ceil{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  ceil.ceil_mode = true;
  PoolParams ceil_big{{2, 2}, {2, 2}, {1, 0, 0, 1}};
  ceil_big.ceil_mode = true;
  PoolParams same_upper{{3, 2}, {2, 2}};
  same_upper.auto_pad = fb::AutoPad::SameUpper;
  PoolParams same_lower{{2, 3}, {1, 2}, {}, {2, 1}};
  same_lower.auto_pad = fb::AutoPad::SameLower;
  PoolParams valid{{3, 3}, {2, 2}, {1, 1, 1, 1}};  // pads ignored under VALID
  valid.auto_pad = fb::AutoPad::Valid;
  for (fb::OpType type : kWindowPools) {
    for (PoolParams p : {dilated, stride3, rect, ceil, ceil_big, same_upper, same_lower, valid}) {
      for (bool include_pad : {false, true}) {
        p.count_include_pad = include_pad;
        for (int64_t n : {7, 13, 40}) {
          expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {2, 2, n, n + 3}, 4)});
        }
      }
    }
  }
}

TEST(PoolOps, OneAndThreeDimsCpuMatchesReference) {
  PoolParams one_d_same{{3}, {2}};
  one_d_same.auto_pad = fb::AutoPad::SameUpper;
  PoolParams one_d_ceil{{4}, {3}, {1, 2}, {2}};
  one_d_ceil.ceil_mode = true;
  one_d_ceil.count_include_pad = true;
  const PoolParams three_d[] = {{{2, 2, 2}, {2, 2, 2}},
                                {{3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}},
                                {{2, 3, 1}, {1, 2, 1}, {1, 0, 0, 0, 1, 0}, {2, 1, 1}}};
  for (fb::OpType type : kWindowPools) {
    for (const PoolParams& p : {PoolParams{{3}}, PoolParams{{2}, {2}}, one_d_same, one_d_ceil}) {
      for (int64_t n : odd_sizes()) {
        if (n < 4) continue;
        expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {2, 3, n}, 5)});
      }
    }
    for (PoolParams p : three_d) {
      for (bool include_pad : {false, true}) {
        p.count_include_pad = include_pad;
        expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {1, 3, 5, 6, 7}, 6)});
        expect_cpu_matches_reference(pool_op(type, p), {random_tensor(DType::F32, {2, 1, 4, 13, 9}, 7)});
      }
    }
  }
}

TEST(PoolOps, GlobalPoolsCpuMatchesReference) {
  for (fb::OpType type : {fb::OpType::GlobalAveragePool, fb::OpType::GlobalMaxPool}) {
    for (int64_t n : odd_sizes()) {
      expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {2, 3, n, 5}, 8)});
      expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {1, n, 7}, 9)});
      expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {n, 2, 3, 2, n}, 10)});
    }
    expect_cpu_matches_reference(make_op(type), {random_tensor(DType::F32, {1, 2, 97, 89}, 11)});
  }
}

// A MaxPool node that also asks for its Indices output.
fb::OpT max_pool_with_indices(const PoolParams& p) {
  fb::OpT op = pool_op(fb::OpType::MaxPool, p);
  op.outputs = {1, 2};
  return op;
}

TEST(PoolOps, MaxPoolIndicesCpuMatchesReference) {
  PoolParams ceil{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  ceil.ceil_mode = true;
  PoolParams same{{2, 3}, {1, 2}, {}, {2, 1}};
  same.auto_pad = fb::AutoPad::SameLower;
  const PoolParams cases[] = {
      {{3, 3}, {2, 2}, {1, 1, 1, 1}}, {{2, 2}, {2, 2}}, {{3, 2}, {1, 2}, {2, 1, 1, 0}, {2, 3}}, ceil, same};
  for (const PoolParams& p : cases) {
    for (int64_t n : {3, 7, 13}) {
      expect_cpu_matches_reference(max_pool_with_indices(p), {random_tensor(DType::F32, {2, 3, n + 2, n}, 12)}, 0, 0);
    }
  }
  // Ties (values from a few integers) go to the first tap in window order.
  Tensor ties = random_tensor(DType::I32, {2, 2, 9, 11}, 13, -2, 2);
  std::vector<double> values = ties.to_doubles();
  std::vector<float> as_float(values.begin(), values.end());
  expect_cpu_matches_reference(max_pool_with_indices({{3, 3}, {1, 1}, {1, 1, 1, 1}}),
                               {Tensor::from_vector<float>({2, 2, 9, 11}, as_float)}, 0, 0);
  expect_cpu_matches_reference(max_pool_with_indices({{3}, {2}, {1, 1}}), {random_tensor(DType::F32, {2, 2, 13}, 14)},
                               0, 0);
  expect_cpu_matches_reference(max_pool_with_indices({{2, 2, 2}, {1, 2, 1}}),
                               {random_tensor(DType::F32, {1, 2, 4, 5, 6}, 15)}, 0, 0);
}

// MaxPool on uint8 and int8 (an int8 graph's quantised tensors): every
// 8-bit value is exact in f32 and a max is one of its taps, so the f32
// result of the same values is the reference, for the CPU kernel on every
// SIMD target (vectors of 16 to 64 bytes) and for the reference kernel;
// with Indices too. The values include both ends of each type's range.
TEST(PoolOps, MaxPool8BitMatchesF32OfTheSameValues) {
  PoolParams ceil{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  ceil.ceil_mode = true;
  PoolParams dilated{{3, 2}, {1, 2}, {2, 1, 1, 0}, {2, 3}};
  const PoolParams cases[] = {{{3, 3}, {2, 2}}, {{2, 2}, {2, 2}}, {{3, 3}, {1, 1}, {1, 1, 1, 1}}, ceil, dilated};
  const auto as_f32 = [](const Tensor& t) {
    const std::vector<double> v = t.to_doubles();
    return Tensor::from_vector<float>(t.shape(), std::vector<float>(v.begin(), v.end()));
  };
  for_each_simd_target([&] {
    for (DType dtype : {DType::U8, DType::I8}) {
      const double lo = dtype == DType::U8 ? 0 : -128, hi = dtype == DType::U8 ? 255 : 127;
      for (const PoolParams& p : cases) {
        for (int64_t w : {5, 13, 55, 111, 200}) {
          Tensor x = random_tensor(dtype, {1, 3, 9, w}, static_cast<uint32_t>(w), lo, hi);
          // The extremes, and windows of nothing but the lowest value (a
          // quantised Relu's zeros): their max and its first index.
          auto* bytes = static_cast<uint8_t*>(x.raw());
          const uint8_t lowest = dtype == DType::U8 ? 0 : 0x80, highest = dtype == DType::U8 ? 255 : 0x7f;
          for (int64_t r = 0; r < 4; ++r) std::fill(bytes + r * w, bytes + r * w + std::min<int64_t>(w, 6), lowest);
          bytes[9 * w + 2] = highest;
          bytes[x.numel() - 1] = highest;
          for (const fb::OpT& op : {pool_op(fb::OpType::MaxPool, p), max_pool_with_indices(p)}) {
            auto want = run_op(op, {as_f32(x)}, Impl::kReference);
            ASSERT_TRUE(want.ok()) << want.status().message();
            for (Impl impl : {Impl::kCpu, Impl::kReference}) {
              auto got = run_op(op, {x}, impl, 2);
              ASSERT_TRUE(got.ok()) << impl_name(impl) << ": " << got.status().message();
              ASSERT_EQ((*got)[0].dtype(), dtype);
              const std::string what = std::string(impl_name(impl)) + " " + dtype_name(dtype) + " w=" +
                                       std::to_string(w) + " outputs=" + std::to_string(op.outputs.size());
              expect_tensors_near(as_f32((*got)[0]), (*want)[0], 0, 0, what);
              if (op.outputs.size() > 1) expect_tensors_near((*got)[1], (*want)[1], 0, 0, what + " indices");
            }
          }
        }
      }
    }
  });
}

TEST(PoolOps, EmptyBatchIsFine) {
  for (fb::OpType type : kWindowPools) {
    expect_cpu_matches_reference(pool_op(type, {{2, 2}}), {Tensor::zeros(DType::F32, {0, 2, 4, 4})});
  }
  expect_cpu_matches_reference(make_op(fb::OpType::GlobalAveragePool), {Tensor::zeros(DType::F32, {2, 0, 4, 4})});
}

// NaN wins a max whichever tap it is, on every SIMD target (their Max
// instructions differ on NaN; the kernels track NaNs beside them): NaNs in
// the first, middle and last rows and columns, among larger and smaller
// values, at strides 1 and 2 and in rows longer than a vector.
TEST(PoolOps, MaxPoolPropagatesNaN) {
  for_each_simd_target([] {
    std::vector<float> values(6 * 40);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
    for (size_t at : {0u, 2 * 40 + 9u, 3 * 40 + 22u, 5 * 40 + 39u}) {
      values[at] = std::numeric_limits<float>::quiet_NaN();
    }
    Tensor x = Tensor::from_vector<float>({1, 1, 6, 40}, values);
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {1, 1}, {1, 1, 1, 1}}), {x});
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}, {1, 1, 1, 1}}), {x});
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{2, 2}, {2, 2}}), {x});
    expect_cpu_matches_reference(make_op(fb::OpType::GlobalMaxPool), {x});
    expect_cpu_matches_reference(max_pool_with_indices({{3, 3}, {1, 1}, {1, 1, 1, 1}}), {x});
    // Rows of 6 outputs, shorter than a vector (the 3-wide stride-2 window
    // of a short row): NaN first, inside and last.
    std::vector<float> narrow(5 * 13);
    for (size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<float>(i % 5) - 2.0f;
    for (size_t at : {0u, 13 + 6u, 4 * 13 + 12u}) narrow[at] = std::numeric_limits<float>::quiet_NaN();
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}}),
                                 {Tensor::from_vector<float>({1, 1, 5, 13}, narrow)});
  });
}

// Float max pools check the rows of each plane they read for NaNs once and
// take plain maxima where there are none: planes with and without NaNs side
// by side, a NaN at a plane's first and last element, calls that start
// inside a plane (two threads), on every SIMD target, for the windows that
// take the general path (5x5 and 3x3 at stride 1, SPPF's and Inception's;
// 2x2 at stride 2).
TEST(PoolOps, MaxPoolChecksEachPlaneForNaN) {
  for_each_simd_target([] {
    const int64_t planes = 6, h = 9, w = 21;
    std::vector<float> values = random_floats(static_cast<size_t>(planes * h * w), 7);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    values[static_cast<size_t>(1 * h * w)] = nan;               // plane 1, first element
    values[static_cast<size_t>(3 * h * w + 4 * w + 10)] = nan;  // plane 3, inside
    values[static_cast<size_t>(5 * h * w + h * w - 1)] = -nan;  // plane 5, last element
    const Tensor x = Tensor::from_vector<float>({2, 3, h, w}, values);
    for (const PoolParams& p : {PoolParams{{5, 5}, {1, 1}, {2, 2, 2, 2}}, PoolParams{{3, 3}, {1, 1}, {1, 1, 1, 1}},
                                PoolParams{{2, 2}, {2, 2}}}) {
      expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, p), {x});
    }
    // Tall planes: at two threads the 450 output rows of a 5x5 pool split
    // in two calls at row 225, inside plane 1, each checking the rows it
    // reads. NaNs in plane 1 at input row 76 (read by output rows 74-78,
    // both calls) and 100 (only the second).
    std::vector<float> tall = random_floats(3 * 150 * 9, 8);
    tall[static_cast<size_t>((150 + 76) * 9 + 4)] = nan;
    tall[static_cast<size_t>((150 + 100) * 9)] = nan;
    expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{5, 5}, {1, 1}, {2, 2, 2, 2}}),
                                 {Tensor::from_vector<float>({1, 3, 150, 9}, tall)});
  });
}

// 3x3 stride-2 max windows inside the rows (no padding, or one column of it
// on the left; none past the right edge) are read straight from the input
// rows, each vector's column maxima
// reused by the next, rows near the tensor's end going the general way: on
// every SIMD target, outputs per row from 1 to past three vectors (a row
// shorter than a vector, whole vectors, a tail overlapping the last one),
// inputs one column wider than the windows need or exactly as wide, ceil
// mode (its last window past the edge), several planes, and NaNs among the
// values, also at the columns that only the next vector's maxima bring
// (where the rows are computed a second time, NaN-exactly).
TEST(PoolOps, ThreeByThreeStrideTwoRowsReadDirectlyMatchReference) {
  PoolParams ceil{{3, 3}, {2, 2}};
  ceil.ceil_mode = true;
  for_each_simd_target([&] {
    for (int64_t out_w = 1; out_w <= 50; ++out_w) {
      for (int64_t extra : {0, 1}) {
        const int64_t w = 2 * out_w + 1 + extra;
        Tensor x = random_tensor(DType::F32, {2, 3, 7, w}, static_cast<uint32_t>(w));
        auto* v = static_cast<float*>(x.raw());
        // NaNs of both signs (a kernel may test the magnitude bits).
        for (int64_t i = out_w % 5; i < x.numel(); i += 29 + out_w % 7)
          v[i] = std::copysign(std::numeric_limits<float>::quiet_NaN(), i % 2 ? -1.0f : 1.0f);
        SCOPED_TRACE("width " + std::to_string(w));
        expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}}), {x});
        expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, ceil), {x});
        // One NaN per plane, in the last column the windows read (in the
        // last vector's loads only, for wide rows): the rows that load no
        // NaN keep the fast path.
        Tensor sparse = random_tensor(DType::F32, {2, 3, 7, w}, static_cast<uint32_t>(w) + 100);
        auto* p = static_cast<float*>(sparse.raw());
        for (int64_t plane = 0; plane < 6; ++plane) {
          p[(plane * 7 + 1 + plane % 5) * w + 2 * out_w] = std::numeric_limits<float>::quiet_NaN();
        }
        expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}}), {sparse});
        // A column of padding on the left (ResNet's pools; the first
        // output's window is the first two columns), with and without
        // padding on the other sides, the rows by the top and bottom
        // padding read as two; NaNs in either of the first two columns.
        Tensor edge = random_tensor(DType::F32, {2, 3, 7, w}, static_cast<uint32_t>(w) + 200);
        auto* e = static_cast<float*>(edge.raw());
        e[(1 * 7 + 2) * w + 1] = std::numeric_limits<float>::quiet_NaN();
        e[(3 * 7 + 4) * w] = -std::numeric_limits<float>::quiet_NaN();
        e[(4 * 7 + 6) * w + 1] = std::numeric_limits<float>::quiet_NaN();  // the bottom row
        for (const std::vector<int64_t>& pads :
             {std::vector<int64_t>{1, 1, 1, 1}, std::vector<int64_t>{0, 1, 0, 0}, std::vector<int64_t>{1, 1, 0, 1}}) {
          expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}, pads}), {x});
          expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}, pads}), {edge});
        }
        // Planes of one row: each window reads that row alone.
        const Tensor row = random_tensor(DType::F32, {1, 3, 1, w}, static_cast<uint32_t>(w) + 300);
        expect_cpu_matches_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}, {1, 1, 1, 1}}), {row});
      }
    }
  });
}

void expect_reference(const fb::OpT& op, const Tensor& x, const Tensor& expected) {
  auto y = run_op(op, {x}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-6);
}

// Expected values: a direct numpy loop over each window (every tap at
// o * stride - pad_begin + k * dilation; max / mean of the taps inside the
// input, or sum / taps inside [-pad_begin, in + pad_end) with
// count_include_pad), cross-checked against onnx.reference.ReferenceEvaluator.
// x = (np.arange(20) * 7 % 13 - 6).reshape(1, 1, 4, 5)
Tensor x_4x5() {
  return Tensor::from_vector<float>({1, 1, 4, 5},
                                    {-6, 1, -5, 2, -4, 3, -3, 4, -2, 5, -1, 6, 0, -6, 1, -5, 2, -4, 3, -3});
}
// x2 = (np.arange(8) * 3 % 7 - 3).reshape(1, 2, 4)
Tensor x_1d() { return Tensor::from_vector<float>({1, 2, 4}, {-3, 0, 3, -1, 2, -2, 1, -3}); }

TEST(PoolOps, MaxPoolReferenceMatchesNumpy) {
  // kernel 3x3, strides 2, pads 1
  expect_reference(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}, {1, 1, 1, 1}}), x_4x5(),
                   Tensor::from_vector<float>({1, 1, 2, 3}, {3, 4, 5, 6, 6, 5}));
  // 1-D kernel 2, dilations 2, SAME_UPPER (pads 1, 1)
  PoolParams same{{2}, {}, {}, {2}};
  same.auto_pad = fb::AutoPad::SameUpper;
  expect_reference(pool_op(fb::OpType::MaxPool, same), x_1d(),
                   Tensor::from_vector<float>({1, 2, 4}, {0, 3, 0, 3, -2, 2, -2, 1}));
}

// Indices are flat offsets into all of X, in [0, N*C*H*W) as the ONNX spec
// says (and onnxruntime computes): for each window, among taps (h, w) inside
// X, the first with the largest x[n, c, h, w] gives ((n * C + c) * H + h) * W + w.
TEST(PoolOps, MaxPoolIndicesReferenceMatchesNumpy) {
  auto y = run_op(max_pool_with_indices({{3, 3}, {2, 2}, {1, 1, 1, 1}}), {x_4x5()}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[1], Tensor::from_vector<int64_t>({1, 1, 2, 3}, {5, 7, 9, 11, 11, 9}), 0, 0);
  // x2 = (np.arange(36) * 5 % 7).reshape(2, 2, 3, 3), kernel 2x2
  Tensor x2 = Tensor::from_vector<float>({2, 2, 3, 3}, {0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1,
                                                        6, 4, 2, 0, 5, 3, 1, 6, 4, 2, 0, 5, 3, 1, 6, 4, 2, 0});
  auto z = run_op(max_pool_with_indices({{2, 2}}), {x2}, Impl::kReference);
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  expect_tensors_near(
      (*z)[0], Tensor::from_vector<float>({2, 2, 2, 2}, {6, 6, 6, 6, 4, 6, 5, 3, 6, 5, 6, 6, 3, 6, 4, 6}), 0, 0);
  expect_tensors_near(
      (*z)[1],
      Tensor::from_vector<int64_t>({2, 2, 2, 2}, {4, 4, 4, 4, 12, 11, 15, 16, 18, 22, 25, 25, 30, 32, 33, 32}), 0, 0);
}

TEST(PoolOps, AveragePoolReferenceMatchesNumpy) {
  // kernel 2x2, strides 2, pads [1, 1, 0, 0], ceil_mode: 3x3 outputs.
  PoolParams ceil{{2, 2}, {2, 2}, {1, 1, 0, 0}};
  ceil.ceil_mode = true;
  expect_reference(pool_op(fb::OpType::AveragePool, ceil), x_4x5(),
                   Tensor::from_vector<float>({1, 1, 3, 3}, {-6, -2, -1, 1, 1.75f, -0.5f, -5, -1, 0}));
  ceil.count_include_pad = true;
  expect_reference(pool_op(fb::OpType::AveragePool, ceil), x_4x5(),
                   Tensor::from_vector<float>({1, 1, 3, 3}, {-1.5f, -1, -0.5f, 0.5f, 1.75f, -0.5f, -2.5f, -1, 0}));
  // 1-D kernel 2, stride 2, pads [0, 1], ceil_mode: a third window would
  // start in the right padding, so there are 2 outputs.
  PoolParams dropped{{2}, {2}, {0, 1}};
  dropped.ceil_mode = true;
  dropped.count_include_pad = true;
  expect_reference(pool_op(fb::OpType::AveragePool, dropped), x_1d(),
                   Tensor::from_vector<float>({1, 2, 2}, {-1.5f, 1, 0, -1}));
  // 1-D kernel 3, stride 2, SAME_LOWER (pads 1, 0)
  PoolParams same{{3}, {2}};
  same.auto_pad = fb::AutoPad::SameLower;
  expect_reference(pool_op(fb::OpType::AveragePool, same), x_1d(),
                   Tensor::from_vector<float>({1, 2, 2}, {-1.5f, 0.6666667f, 0, -1.3333333f}));
  // 3-D kernel 2x2x2 on x3 = (np.arange(36) * 5 % 11 - 5).reshape(1, 2, 3, 3, 2) * 0.5
  Tensor x3 = Tensor::from_vector<float>(
      {1, 2, 3, 3, 2},
      {-2.5f, 0, 2.5f, -0.5f, 2,     -1, 1.5f, -1.5f, 1, -2, 0.5f, -2.5f, 0, 2.5f, -0.5f, 2,     -1, 1.5f,
       -1.5f, 1, -2,   0.5f,  -2.5f, 0,  2.5f, -0.5f, 2, -1, 1.5f, -1.5f, 1, -2,   0.5f,  -2.5f, 0,  2.5f});
  expect_reference(
      pool_op(fb::OpType::AveragePool, {{2, 2, 2}}), x3,
      Tensor::from_vector<float>({1, 2, 2, 2, 1}, {-0.1875f, 0, 0.375f, -0.125f, 0.125f, -0.375f, 0, 0.1875f}));
  // x3.mean(axis=(2, 3, 4)), x3.max(axis=(2, 3, 4))
  expect_reference(make_op(fb::OpType::GlobalAveragePool), x3,
                   Tensor::from_vector<float>({1, 2, 1, 1, 1}, {0.11111111f, -0.11111111f}));
  expect_reference(make_op(fb::OpType::GlobalMaxPool), x3, Tensor::from_vector<float>({1, 2, 1, 1, 1}, {2.5f, 2.5f}));
  // x.mean(axis=(2, 3)), x.max(axis=(2, 3))
  expect_reference(make_op(fb::OpType::GlobalAveragePool), x_4x5(),
                   Tensor::from_vector<float>({1, 1, 1, 1}, {-0.6f}));
  expect_reference(make_op(fb::OpType::GlobalMaxPool), x_4x5(), Tensor::from_vector<float>({1, 1, 1, 1}, {6}));
}

TEST(PoolOps, OutputShapes) {
  auto shape_of = [](const PoolParams& p, const Shape& x) {
    auto y = run_op(pool_op(fb::OpType::MaxPool, p), {random_tensor(DType::F32, x, 1)}, Impl::kCpu);
    EXPECT_TRUE(y.ok()) << y.status().to_string();
    return y.ok() ? (*y)[0].shape() : Shape{};
  };
  EXPECT_EQ(shape_of({{3, 3}, {2, 2}, {1, 1, 1, 1}}, {1, 3, 224, 224}), (Shape{1, 3, 112, 112}));
  EXPECT_EQ(shape_of({{2, 2}, {2, 2}}, {1, 1, 7, 7}), (Shape{1, 1, 3, 3}));
  PoolParams ceil{{2, 2}, {2, 2}};
  ceil.ceil_mode = true;
  EXPECT_EQ(shape_of(ceil, {1, 1, 7, 7}), (Shape{1, 1, 4, 4}));
  PoolParams same{{3, 3}, {2, 2}};
  same.auto_pad = fb::AutoPad::SameUpper;
  EXPECT_EQ(shape_of(same, {1, 1, 7, 8}), (Shape{1, 1, 4, 4}));
  PoolParams valid{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  valid.auto_pad = fb::AutoPad::Valid;
  EXPECT_EQ(shape_of(valid, {1, 1, 7, 8}), (Shape{1, 1, 3, 3}));
  auto global =
      run_op(make_op(fb::OpType::GlobalAveragePool), {random_tensor(DType::F32, {2, 3, 4, 5}, 1)}, Impl::kCpu);
  ASSERT_TRUE(global.ok());
  EXPECT_EQ((*global)[0].shape(), (Shape{2, 3, 1, 1}));
}

TEST(PoolOps, ShapeErrors) {
  Tensor x = random_tensor(DType::F32, {1, 2, 6, 6}, 1);
  auto expect_code = [&](const PoolParams& p, StatusCode code, const char* what, const Tensor* input = nullptr) {
    for (fb::OpType type : kWindowPools) {
      auto r = run_op(pool_op(type, p), {input ? *input : x}, Impl::kCpu);
      EXPECT_EQ(r.status().code(), code) << what << ": " << r.status().to_string();
    }
  };
  const StatusCode invalid = StatusCode::kInvalidModel;
  expect_code({{}}, invalid, "no kernel_shape");
  expect_code({{3}}, invalid, "kernel rank does not match X");
  expect_code({{3, 3}, {1}}, invalid, "strides of the wrong length");
  expect_code({{3, 3}, {0, 1}}, invalid, "zero stride");
  expect_code({{3, 3}, {}, {1, 1}}, invalid, "pads of the wrong length");
  expect_code({{3, 3}, {}, {-1, 0, 0, 0}}, invalid, "negative pad");
  expect_code({{3, 3}, {}, {3, 0, 0, 0}}, invalid, "pad as large as the kernel");
  expect_code({{3, 3}, {}, {}, {0, 1}}, invalid, "zero dilation");
  expect_code({{7, 3}}, invalid, "window larger than the input");
  expect_code({{3, 3}, {}, {}, {3, 1}}, invalid, "dilated window larger than the input");
  Tensor five_d = random_tensor(DType::F32, {1, 1, 2, 2, 2, 2}, 1);
  expect_code({{1, 1, 1, 1}}, StatusCode::kUnsupported, "4 spatial dims", &five_d);
  Tensor ints = random_tensor(DType::I32, {1, 2, 6, 6}, 1);
  expect_code({{3, 3}}, invalid, "integer input", &ints);
  // 8-bit inputs are MaxPool's only: an average of quantised values would
  // need requantising.
  const Tensor bytes = random_tensor(DType::U8, {1, 2, 6, 6}, 1, 0, 255);
  auto u8_average = run_op(pool_op(fb::OpType::AveragePool, {{3, 3}}), {bytes}, Impl::kCpu);
  EXPECT_EQ(u8_average.status().code(), invalid) << u8_average.status().to_string();

  for (fb::OpType type : {fb::OpType::GlobalAveragePool, fb::OpType::GlobalMaxPool}) {
    EXPECT_EQ(run_op(make_op(type), {random_tensor(DType::F32, {2, 3}, 1)}, Impl::kCpu).status().code(), invalid);
    EXPECT_EQ(run_op(make_op(type), {random_tensor(DType::I64, {2, 3, 4}, 1)}, Impl::kCpu).status().code(), invalid);
  }
}

}  // namespace
}  // namespace mote::test
