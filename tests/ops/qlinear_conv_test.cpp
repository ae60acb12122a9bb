// QLinearConv: the optimised int8 kernel against the reference (exact
// integer sums, requantised in double). The kernel requantises in float, so
// an output may differ by one quantum where the exact value lies within
// float rounding of a tie; anything further is a failure.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

// Compares the kernels on random data; returns false when the geometry is
// invalid (nothing checked).
bool check_qlinear_conv(const Shape& x, const Shape& w, const fb::ConvAttrsT& a, const QuantCase& q,
                        const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  std::optional<QLinearConvCase> c = qlinear_conv_case(x, w, a, q, act, seed);
  if (!c) return false;
  SCOPED_TRACE(c->label);
  auto expected = run_op(c->op, c->inputs, Impl::kReference);
  EXPECT_TRUE(expected.ok()) << expected.status().to_string();
  if (!expected.ok()) return true;
  const Tensor& ref = (*expected)[0];
  EXPECT_GE(distinct_bytes(ref), std::min<int64_t>(ref.numel() / 4, 24)) << "outputs too uniform";
  for (int threads : {1, 2}) {
    auto actual = run_op(c->op, c->inputs, Impl::kCpu, threads);
    EXPECT_TRUE(actual.ok()) << actual.status().to_string();
    if (!actual.ok()) continue;
    expect_tensors_near((*actual)[0], ref, 0.0, 1.0, "threads " + std::to_string(threads));
    // Off by one only at near-ties: a handful in a thousand at most.
    const int64_t off = bytes_off((*actual)[0], ref);
    EXPECT_LE(off, 2 + ref.numel() / 200) << off << " of " << ref.numel() << " outputs off by one";
  }
  return true;
}

// A layer for the tables of the tests below.
struct Layer {
  Shape x, w;
  fb::ConvAttrsT attrs;
};

// check_qlinear_conv on every layer with every case (seed seed_step * layer
// + case); each must be a valid geometry.
void check_layers(const std::vector<Layer>& layers, const std::vector<QuantCase>& cases, uint32_t seed_step) {
  int checked = 0;
  for (size_t v = 0; v < layers.size(); ++v) {
    for (size_t c = 0; c < cases.size(); ++c) {
      checked += check_qlinear_conv(layers[v].x, layers[v].w, layers[v].attrs, cases[c], nullptr,
                                    static_cast<uint32_t>(seed_step * v + c));
    }
  }
  EXPECT_EQ(checked, static_cast<int>(layers.size() * cases.size()));
}

TEST(QLinearConvOps, GeneralCpuMatchesReference) {
  struct Variant {
    Shape kernel;
    fb::ConvAttrsT attrs;
    int64_t in_channels, out_channels;
  };
  const std::vector<Variant> variants = {
      {{3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), 3, 4},
      {{3, 3}, conv_attrs({2, 2}, {0, 1, 2, 1}), 3, 5},             // asymmetric pads, stride 2
      {{3, 3}, conv_attrs({3, 3}, {1, 1, 1, 1}), 3, 4},             // stride 3 (the gather's general stride)
      {{3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}), 2, 3},     // dilation
      {{3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2), 4, 6},      // groups
      {{3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 8), 8, 8},      // depthwise (qdepthwise.cpp)
      {{3, 3}, conv_attrs({2, 2}, {0, 0, 1, 1}, {}, 6), 6, 6},      // depthwise, stride 2, TFLite's SAME pads
      {{3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 4), 4, 8},      // depthwise, multiplier 2
      {{5, 5}, conv_attrs({1, 1}, {4, 4, 4, 4}, {2, 2}, 3), 3, 3},  // depthwise, dilated
      {{3, 5}, conv_attrs({3, 1}, {1, 2, 0, 1}, {}, 5), 5, 5},      // depthwise, stride 3 x 1, uneven kernel
      {{3, 3}, conv_attrs({1, 3}, {1, 1, 1, 1}, {}, 4), 4, 4},      // depthwise, width stride 3 (plain loop)
      {{1, 1}, conv_attrs(), 33, 17},                               // pointwise, odd depth
      {{5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}), 2, 9},
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::U8, DType::U8, DType::I8, false, true},
      {DType::I8, DType::U8, DType::U8, true, false},
      {DType::U8, DType::I8, DType::U8, true, true, DType::F32, true},
      {DType::I8, DType::I8, DType::I8, false, false, DType::F32, true},
  };
  int checked = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& var = variants[v];
    for (size_t c = 0; c < cases.size(); ++c) {
      for (int64_t h : {1, 7, 20}) {
        for (int64_t n : {1, 2}) {
          const Shape x = {n, var.in_channels, h, h + 3};
          const Shape wt = {var.out_channels, var.in_channels / var.attrs.group, var.kernel[0], var.kernel[1]};
          checked += check_qlinear_conv(x, wt, var.attrs, cases[c], nullptr, static_cast<uint32_t>(v * 97 + c * 13 + h));
        }
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(QLinearConvOps, FusedClampCpuMatchesReference) {
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  for (const auto* act : {&relu, &clip}) {
    EXPECT_TRUE(check_qlinear_conv({1, 16, 9, 9}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), QuantCase{}, act));
    EXPECT_TRUE(check_qlinear_conv({1, 64, 5, 5}, {40, 64, 1, 1}, conv_attrs(), QuantCase{}, act));
    EXPECT_TRUE(check_qlinear_conv({1, 16, 9, 9}, {16, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 16), QuantCase{}, act));
  }
}

// HardSwish and SiLU, which the requantising store applies to the real
// value (qgemm.hpp): the GEMM (3x3, 1x1), the depthwise kernels and a fused
// residual, on every SIMD target the tests compile (the portable store) and
// on this CPU's own (VNNI's quads and AVX-512's narrowing store).
TEST(QLinearConvOps, FusedHardSwishAndSiluCpuMatchesReference) {
  const fb::FusedActivationT hard_swish = fused_activation(fb::ActivationKind::HardSwish);
  const fb::FusedActivationT silu = fused_activation(fb::ActivationKind::SiLU);
  const auto check_all = [&] {
    int checked = 0;
    for (const auto* act : {&hard_swish, &silu}) {
      checked +=
          check_qlinear_conv({1, 16, 9, 9}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), QuantCase{}, act);
      checked += check_qlinear_conv({1, 64, 5, 5}, {40, 64, 1, 1}, conv_attrs(), QuantCase{}, act, 2);
      checked += check_qlinear_conv({1, 16, 9, 9}, {16, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 16),
                                    QuantCase{}, act, 3);
      checked += check_qlinear_conv({1, 8, 14, 14}, {8, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 8),
                                    QuantCase{DType::I8, DType::I8, DType::I8, true, true}, act, 4);
      checked += check_qlinear_conv({1, 16, 9, 11}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}),
                                    QuantCase{DType::U8, DType::I8, DType::U8, true, true, DType::U8}, act, 5);
    }
    EXPECT_EQ(checked, 10);
  };
  check_all();
  for_each_simd_target(check_all);
}

// A Clip wholly below (or above) what the output type holds: every output
// is the type's limit on every target (the store keeps the low byte of a
// value it expects in range; EMU128 and x86 disagreed past it).
TEST(QLinearConvOps, ClipOutsideTheOutputRangeSaturates) {
  const fb::FusedActivationT below = fused_activation(fb::ActivationKind::Clip, 0.0f, -2e6f, -1e6f);
  const fb::FusedActivationT above = fused_activation(fb::ActivationKind::Clip, 0.0f, 1e6f, 2e6f);
  for (const auto* act : {&below, &above}) {
    for (const QuantCase& q : {QuantCase{}, QuantCase{DType::I8, DType::I8, DType::I8}}) {
      std::optional<QLinearConvCase> c =
          qlinear_conv_case({1, 8, 6, 6}, {16, 8, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), q, act, 5);
      ASSERT_TRUE(c);
      SCOPED_TRACE(c->label);
      auto expected = run_op(c->op, c->inputs, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      for_each_simd_target([&] {
        auto actual = run_op(c->op, c->inputs, Impl::kCpu);
        ASSERT_TRUE(actual.ok()) << actual.status().to_string();
        expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 0.0);
      });
    }
  }
}

TEST(QLinearConvOps, OneDimensionalAndWideCpuMatchesReference) {
  EXPECT_TRUE(check_qlinear_conv({2, 3, 127}, {4, 3, 5}, conv_attrs({2}, {2, 2}), QuantCase{}));
  EXPECT_TRUE(check_qlinear_conv({1, 6, 50}, {6, 1, 5}, conv_attrs({1}, {2, 2}, {}, 6), QuantCase{}));  // 1-D depthwise
  // Deep enough that one tile of patches cannot hold every pixel.
  EXPECT_TRUE(check_qlinear_conv({1, 256, 30, 30}, {8, 256, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), QuantCase{}));
}

// Depthwise outputs wider than the channel-block path takes (14 columns on
// 8- and 16-lane vectors), so the row paths run on every target: the float
// kernel's rows converted from 8 bits as they are padded, at width strides 1
// and 2 (rows split by parity), and the plain loop for stride 3; partial
// vectors at each row's end; int8 and uint8 inputs and outputs.
TEST(QLinearConvOps, DepthwiseRowPathsCpuMatchReference) {
  const std::vector<Layer> layers = {
      {{1, 5, 9, 37}, {5, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 5)},  // stride 1, 37 columns
      {{1, 4, 9, 70}, {4, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 4)},  // stride 2, 35 columns
      {{1, 3, 6, 61}, {3, 1, 5, 5}, conv_attrs({1, 2}, {2, 2, 2, 2}, {}, 3)},  // 5x5, stride 1 x 2, 31 columns
      {{1, 4, 7, 95}, {4, 1, 3, 3}, conv_attrs({1, 3}, {1, 1, 1, 1}, {}, 4)},  // stride 3 (plain loop), 32 columns
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::I8, DType::U8, DType::I8, true, true, DType::I8},  // a fused int8 residual
  };
  for_each_simd_target([&] { check_layers(layers, cases, 17); });
}

// The integer depthwise kernel (qdepthwise_quads.hpp), which the CPU picks
// where it has VNNI and byte permutes (AVX3_DL: this machine's and CI's):
// the unrolled 3x3 and 5x5 kernels (two rows at a time at height strides 1
// and 2, in one vector where a row is at most 8 wide, with an odd last row;
// one at a time otherwise) and the general
// one (7x7, nine taps in three lanes), outputs narrower than a vector and
// rows of several 64-byte segments, strides 2 and 3, dilation, pads wider
// than the kernel's reach, a depth multiplier, several images; a layer
// whose taps a 64-byte load cannot hold and weights past int8 take the
// float kernel. Outputs narrower than a vector are computed flat (16 at a
// time across row ends, each vector's taps from one 64-byte window of the
// plane, QDepthwiseFlat): 7x7 and 14x14 planes, a plane of exactly 64
// bytes at stride 2, 5x5 and 7x7 kernels, dilation, asymmetric pads, a
// multiplier; narrow planes that take the other paths: too many permutes
// for the flat path's tables (tall 7- and 5-wide planes, two rows to a
// vector) or windows wider than a load (dilation 4). Elsewhere all of it
// runs on the float kernel, against the same reference.
TEST(QLinearConvOps, DepthwiseIntegerKernelCpuMatchesReference) {
  const std::vector<Layer> layers = {
      {{1, 6, 7, 7}, {6, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 6)},        // 7x7: flat, 4 vectors
      {{1, 5, 14, 14}, {5, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 5)},      // 14x14: flat, 13 vectors
      {{2, 4, 8, 8}, {4, 1, 3, 3}, conv_attrs({2, 2}, {0, 0, 1, 1}, {}, 4)},        // flat: the whole plane, stride 2
      {{1, 3, 7, 7}, {3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 3)},        // flat 5x5
      {{1, 3, 7, 7}, {3, 1, 7, 7}, conv_attrs({1, 1}, {3, 3, 3, 3}, {}, 3)},        // flat 7x7: 56 permutes
      {{1, 4, 10, 6}, {4, 1, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}, 4)},   // flat, dilated
      {{1, 4, 11, 9}, {8, 1, 3, 3}, conv_attrs({1, 1}, {0, 1, 2, 1}, {}, 4)},       // flat, uneven pads, multiplier 2
      {{1, 3, 12, 15}, {3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 3)},      // 120 permutes: not flat
      {{1, 3, 12, 12}, {3, 1, 3, 3}, conv_attrs({1, 1}, {4, 4, 4, 4}, {4, 4}, 3)},  // windows past a load: rows
      {{1, 4, 60, 7}, {4, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 4)},       // 81 permutes: two rows a vector
      {{1, 3, 40, 5}, {3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 3)},       // the same for 5x5
      {{2, 5, 9, 37}, {5, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 5)},       // 2 images, 3 vectors
      {{1, 4, 11, 70}, {4, 1, 3, 3}, conv_attrs({2, 2}, {0, 0, 1, 1}, {}, 4)},      // stride 2, two segments
      {{1, 3, 8, 150}, {3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 3)},      // 5x5, three segments
      {{2, 3, 7, 21}, {3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 3)},       // 5x5, odd rows
      {{1, 4, 9, 5}, {4, 1, 5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 4)},        // 5x5, two rows a vector
      {{2, 4, 13, 15}, {4, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 4)},      // 8 wide, stride 2
      {{1, 3, 9, 40}, {3, 1, 7, 7}, conv_attrs({1, 1}, {3, 3, 3, 3}, {}, 3)},       // 7x7: two lanes a row
      {{1, 4, 1, 200}, {4, 1, 1, 9}, conv_attrs({1, 1}, {0, 4, 0, 4}, {}, 4)},      // one row, three lanes
      {{1, 4, 12, 30}, {8, 1, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}, 4)},  // multiplier 2, dilated
      {{1, 3, 10, 50}, {3, 1, 3, 3}, conv_attrs({3, 3}, {1, 1, 1, 1}, {}, 3)},      // stride 3
      {{1, 2, 6, 20}, {2, 1, 3, 3}, conv_attrs({1, 1}, {5, 9, 5, 9}, {}, 2)},       // pads past the taps
      {{1, 2, 5, 90}, {2, 1, 1, 9}, conv_attrs({1, 1}, {0, 20, 0, 20}, {1, 5}, 2)},  // beyond a load: float
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::U8, DType::I8, DType::I8, true, false, DType::U8},  // a fused uint8 residual
      {DType::I8, DType::I8, DType::U8, true, true, DType::I8},   // a fused int8 residual
      {DType::U8, DType::U8, DType::U8, true, true},              // weights past int8: float
  };
  check_layers(layers, cases, 41);
  // With each fused clamp, which the store applies.
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -10.0f, 25.0f);
  for (const auto* act : {&relu, &clip}) {
    EXPECT_TRUE(
        check_qlinear_conv({1, 8, 14, 14}, {8, 1, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 8), QuantCase{}, act));
  }
}

// Stride 1 with the output the input's size: the patches are read in place
// from shifted planes (qconv_patches.hpp), masked where a shift crosses the
// image's left or right edge. Asymmetric pads, 1-D, kernels wider or taller
// than the image, dilation, and widths that end in partial vectors; 8-bit
// and 7-bit weights (x86's byte-pair kernel).
TEST(QLinearConvOps, ShiftedPlanesCpuMatchesReference) {
  const std::vector<Layer> layers = {
      {{1, 6, 9, 13}, {5, 6, 3, 3}, conv_attrs({1, 1}, {0, 0, 2, 2})},           // pads all after
      {{1, 6, 9, 13}, {5, 6, 3, 3}, conv_attrs({1, 1}, {2, 2, 0, 0})},           // pads all before
      {{2, 5, 3, 2}, {7, 5, 7, 7}, conv_attrs({1, 1}, {3, 3, 3, 3})},            // kernel beyond the image
      {{1, 4, 11, 10}, {6, 4, 3, 3}, conv_attrs({1, 1}, {3, 3, 3, 3}, {3, 3})},  // dilated
      {{1, 3, 8, 17}, {4, 3, 1, 5}, conv_attrs({1, 1}, {0, 2, 0, 2})},           // one row of taps
      {{1, 3, 17, 8}, {4, 3, 5, 1}, conv_attrs({1, 1}, {2, 0, 2, 0})},           // one column of taps
      {{1, 9, 100}, {5, 9, 5}, conv_attrs({1}, {2, 2})},                         // 1-D
      {{1, 6, 6, 6}, {8, 3, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 2)},     // groups
      {{2, 6, 5, 9}, {6, 2, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 3)},     // images and groups
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::U8, DType::U8, DType::I8, false, true},  // weights past int8 once less their zero point: int16 pairs
      {DType::U8, DType::I8, DType::U8, true, true, DType::F32, true},
      {DType::I8, DType::I8, DType::U8, false, false, DType::F32, true},
  };
  // Every target: the masked interleave and the byte-pair kernel differ by
  // instruction set, and a VNNI machine would pick neither.
  for_each_simd_target([&] { check_layers(layers, cases, 31); });
}

// Products of one or two columns (a Gemm run as a 1x1 convolution over one
// or two images' rows, as --quantize int8 writes classifier heads) take the
// column-at-a-time product on AVX-512: rows not a multiple of the 8-row
// panel, depths whose groups end in a pair, a single group, or neither
// (37, 9 and 64), with a residual of either type and each clamp; every
// target.
TEST(QLinearConvOps, ColumnProductsCpuMatchReference) {
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  // Weight zero points 0 (per tensor, or 7-bit weights): the byte format
  // the column product takes; per-channel zero points push the weights past
  // int8 (int16 pairs, the tiles).
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, false, true},
      {DType::I8, DType::I8, DType::I8, false, true},
      {DType::U8, DType::I8, DType::U8, false, true, DType::U8},
      {DType::I8, DType::I8, DType::U8, false, false, DType::I8},
      {DType::U8, DType::I8, DType::U8, true, true, DType::F32, true},
      {DType::U8, DType::I8, DType::U8, true, true},
  };
  // The CPU's own choice first (AVX3_DL here: VNNI, 8-bit weights as
  // bytes), then every target this test program was compiled for (which
  // stops at AVX3: there only 7-bit weights are bytes).
  auto check_all = [&] {
    int checked = 0;
    // One and two pixels of one image: one and two columns of one product
    // (two images of one pixel are two products of one column).
    for (int64_t columns : {1, 2}) {
      for (int64_t depth : {37, 9, 64}) {
        for (size_t c = 0; c < cases.size(); ++c) {
          for (const fb::FusedActivationT* act : {static_cast<const fb::FusedActivationT*>(nullptr), &relu, &clip}) {
            checked += check_qlinear_conv({1, depth, 1, columns}, {21, depth, 1, 1}, conv_attrs(), cases[c], act,
                                          static_cast<uint32_t>(7 * depth + c));
          }
        }
      }
    }
    EXPECT_EQ(checked, 2 * 3 * static_cast<int>(cases.size()) * 3);
  };
  check_all();
  for_each_simd_target(check_all);
}

// A last panel of B with one vector and a column or two (pixels 17 or 18
// past a multiple of 32: a 7x7 image's 49, 50, 81, 17 and 18) computes the
// vector as a tile and the columns one at a time from a copy of them, on
// AVX-512; every target computes the same products. Rows not a multiple of
// the 8-row panel, a depth ending in a single group, residuals of either
// type, each clamp.
TEST(QLinearConvOps, LastPanelColumnsCpuMatchReference) {
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  const std::vector<Layer> layers = {
      {{1, 16, 7, 7}, {20, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},  // 49 pixels, depth 144
      {{1, 9, 5, 10}, {13, 9, 1, 1}, conv_attrs()},                       // 50 pixels, a single last group
      {{1, 12, 9, 9}, {8, 12, 1, 1}, conv_attrs()},                       // 81 = 64 + 17
      {{2, 8, 1, 17}, {11, 8, 1, 1}, conv_attrs()},                       // 17 pixels, two images
      {{1, 40, 3, 6}, {24, 40, 1, 1}, conv_attrs()},                      // 18 pixels
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, false, true},
      {DType::I8, DType::I8, DType::I8, false, true, DType::U8},
      {DType::U8, DType::I8, DType::U8, true, true, DType::I8},
      {DType::U8, DType::I8, DType::U8, true, true, DType::F32, true},
  };
  // The CPU's own choice first (AVX3_DL here), then every compiled target.
  auto check_all = [&] {
    check_layers(layers, cases, 23);
    for (const auto* act : {&relu, &clip}) {
      EXPECT_TRUE(check_qlinear_conv({1, 16, 7, 7}, {20, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), cases[0], act));
    }
  };
  check_all();
  for_each_simd_target(check_all);
}

// A 1x1 layer of few output channels (24: three row panels) on 2,304
// pixels, whose patches fit one tile: at 2 threads it runs in narrower
// tiles, two for each thread (qlinear_conv.cpp's kMinSplitColumns), one
// image and two, with a residual and without.
TEST(QLinearConvOps, FewChannelsOverManyPixelsSplitIntoTiles) {
  const QuantCase plain{DType::U8, DType::I8, DType::U8, false, true};
  const QuantCase residual{DType::U8, DType::I8, DType::U8, true, true, DType::U8};
  for (const Shape& x : {Shape{1, 144, 48, 48}, Shape{2, 96, 40, 30}}) {
    for (const QuantCase& q : {plain, residual}) {
      EXPECT_TRUE(check_qlinear_conv(x, {24, x[1], 1, 1}, conv_attrs(), q));
    }
  }
}

// Layers with fewer tiles than threads, or as many, where at 2 threads
// each thread takes one tile of its own, the widths whole half panels (so a
// tile may end in half a panel and the next start inside one): deep 3x3
// patches (128 channels: 448 pixels fill a tile) over 600 pixels, split
// 304 + 296, with a residual; one tile of 144 pixels split 80 + 64, of 100
// split 64 + 36; two images of 50 pixels, a tile each; and an empty batch.
TEST(QLinearConvOps, OneTilePerThreadEndsInHalfPanels) {
  const QuantCase plain{DType::U8, DType::I8, DType::U8, false, true};
  const QuantCase residual{DType::U8, DType::I8, DType::U8, true, true, DType::U8};
  const auto same = conv_attrs({1, 1}, {1, 1, 1, 1});
  EXPECT_TRUE(check_qlinear_conv({1, 128, 20, 30}, {48, 128, 3, 3}, same, residual));
  EXPECT_TRUE(check_qlinear_conv({1, 16, 12, 12}, {40, 16, 3, 3}, same, plain));
  EXPECT_TRUE(check_qlinear_conv({1, 16, 10, 10}, {40, 16, 3, 3}, same, residual));
  EXPECT_TRUE(check_qlinear_conv({2, 16, 5, 10}, {40, 16, 3, 3}, same, plain));
  EXPECT_TRUE(check_qlinear_conv({0, 16, 5, 10}, {40, 16, 3, 3}, same, plain));  // no images: no tiles
}

// Strided layers whose patch matrix has 64 rows or more read their patches
// in place from the input split into stride phases (qconv_patches.hpp):
// ResNet's 3x3 stride-2 layers and 7x7 stem, strides that differ by axis,
// dilation, groups, a kernel the image's size, a kernel of one row and a
// 1-D layer (phases along the width only), images beside each other; widths
// that end in partial panels; and a right pad short of the kernel's reach,
// which phases out_w wide cannot serve (the gathered path takes it). Every
// target, both formats.
TEST(QLinearConvOps, PhasePlanesCpuMatchReference) {
  const std::vector<Layer> layers = {
      {{1, 8, 15, 17}, {6, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},          // 72 rows
      {{1, 3, 23, 20}, {8, 3, 7, 7}, conv_attrs({2, 2}, {3, 3, 3, 3})},          // the stem, 147 rows
      {{1, 8, 12, 13}, {5, 8, 3, 3}, conv_attrs({2, 1}, {1, 1, 1, 1})},          // strides 2 x 1
      {{1, 8, 12, 13}, {5, 8, 3, 3}, conv_attrs({2, 1}, {0, 1, 1, 0})},          // no right pad: gathered
      {{1, 8, 11, 16}, {4, 8, 3, 3}, conv_attrs({3, 3}, {2, 2, 2, 2}, {2, 2})},  // stride 3, dilated
      {{2, 16, 9, 9}, {8, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2)},    // groups, two images
      {{1, 8, 5, 5}, {4, 8, 5, 5}, conv_attrs({2, 2}, {2, 2, 2, 2})},            // the kernel the image's size
      {{1, 64, 7, 6}, {4, 64, 1, 3}, conv_attrs({2, 2}, {0, 1, 0, 1})},          // one row of taps
      {{1, 16, 50}, {4, 16, 5}, conv_attrs({2}, {2, 2})},                        // 1-D
  };
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true},
      {DType::I8, DType::I8, DType::I8, false, false},
      {DType::U8, DType::U8, DType::I8, false, true},  // weights past int8: int16 pairs
      {DType::I8, DType::I8, DType::U8, true, true, DType::U8},
      {DType::U8, DType::I8, DType::U8, true, true, DType::F32, true},
  };
  // The CPU's own choice first (AVX3_DL here), then every target this
  // test program was compiled for.
  check_layers(layers, cases, 53);
  for_each_simd_target([&] { check_layers(layers, cases, 53); });
}

// The byte-pair kernel's worst case: every product at its extreme (inputs
// that reach 255 as the kernel's unsigned bytes, weights all -64 or all 63),
// where two products of a pair come to -32640 or 32130, a step from int16's
// limits. Uniform data, so the expected outputs follow from the tap counts:
// the reference is exact. u8 input 255 and i8 input 127 (+128 in the kernel).
TEST(QLinearConvOps, SevenBitWeightsAtTheExtremesCpuMatchesReference) {
  for_each_simd_target([] {
    for (DType x_type : {DType::U8, DType::I8}) {
      const int64_t c = 16, m = 8;
      Tensor x = Tensor::zeros(x_type, {1, c, 5, 7});
      for (int64_t i = 0; i < x.numel(); ++i) {
        if (x_type == DType::U8) {
          x.data<uint8_t>()[i] = 255;
        } else {
          x.data<int8_t>()[i] = 127;
        }
      }
      Tensor w = Tensor::zeros(DType::I8, {m, c, 3, 3});
      for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = static_cast<int8_t>(i / (c * 9) % 2 ? 63 : -64);
      // Sums up to 144 taps * 255 * 64 = 2.35e6 quanta; y_scale puts them
      // within +-120 of the zero point.
      const Inputs inputs = {x,
                             scalar_of(DType::F32, 0.01),
                             scalar_of(x_type, 0),
                             w,
                             scalar_of(DType::F32, 0.02),
                             scalar_of(DType::I8, 0),
                             scalar_of(DType::F32, 4.0),
                             scalar_of(DType::U8, 128)};
      const fb::OpT op = make_op(fb::OpType::QLinearConv, conv_attrs({1, 1}, {1, 1, 1, 1}));
      auto expected = run_op(op, inputs, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      auto actual = run_op(op, inputs, Impl::kCpu);
      ASSERT_TRUE(actual.ok()) << actual.status().to_string();
      expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 1.0, dtype_name(x_type));
      // The outputs spread far from the zero point both ways (all -64 rows
      // low, all 63 rows high; i8's real inputs are half of u8's), so a
      // saturated pair would show.
      const auto* y = static_cast<const uint8_t*>((*expected)[0].raw());
      const auto [lowest, highest] = std::minmax_element(y, y + (*expected)[0].numel());
      EXPECT_LT(*lowest, 128 - 50);
      EXPECT_GT(*highest, 128 + 50);
    }
  });
}

// The fused residual (Mote's inputs 9-11) on the GEMM path (3x3 and 1x1,
// widths that end in partial vectors, one and two threads) and the
// depthwise one, with each fused clamp.
TEST(QLinearConvOps, ResidualCpuMatchesReference) {
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  const fb::FusedActivationT clip = fused_activation(fb::ActivationKind::Clip, 0.0f, -20.0f, 40.0f);
  const std::vector<QuantCase> cases = {
      {DType::U8, DType::I8, DType::U8, true, true, DType::U8},
      {DType::I8, DType::I8, DType::I8, false, false, DType::I8},
      {DType::U8, DType::U8, DType::I8, true, true, DType::U8},
      {DType::U8, DType::I8, DType::U8, true, true, DType::U8, true},
  };
  int checked = 0;
  for (const QuantCase& q : cases) {
    for (const fb::FusedActivationT* act : {static_cast<const fb::FusedActivationT*>(nullptr), &relu, &clip}) {
      checked += check_qlinear_conv({1, 16, 9, 11}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), q, act);
      checked += check_qlinear_conv({2, 40, 7, 5}, {19, 40, 1, 1}, conv_attrs(), q, act, 5);
      checked += check_qlinear_conv({1, 8, 14, 14}, {12, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}), q, act, 9);
      checked += check_qlinear_conv({1, 12, 9, 9}, {12, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 12), q, act, 3);
    }
  }
  // Few pixels and many channels: the path that splits one tile's rows
  // between the threads.
  checked += check_qlinear_conv({1, 128, 4, 4}, {96, 128, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), cases[0], &relu);
  EXPECT_EQ(checked, 49);
}

// The reference's residual against the definition written out here: a 1x1
// convolution dequantised in double, plus the dequantised residual, Relu,
// requantised.
TEST(QLinearConvOps, ReferenceResidualFollowsTheDefinition) {
  const int64_t c = 5, m = 3, pixels = 12;
  const Tensor x = random_tensor(DType::U8, {1, c, 3, 4}, 1, 0, 256);
  const Tensor w = random_tensor(DType::I8, {m, c, 1, 1}, 2, -128, 128);
  const Tensor r = random_tensor(DType::U8, {1, m, 3, 4}, 3, 0, 256);
  const float xs = 0.02f, ws = 0.01f, ys = 0.05f, rs = 0.04f;
  const int32_t xz = 100, yz = 20, rz = 130;
  const Inputs inputs = {x, scalar_of(DType::F32, xs), scalar_of(DType::U8, xz), w, scalar_of(DType::F32, ws),
                         scalar_of(DType::I8, 0), scalar_of(DType::F32, ys), scalar_of(DType::U8, yz), std::nullopt,
                         r, scalar_of(DType::F32, rs), scalar_of(DType::U8, rz)};
  const fb::OpT op = with_fused(make_op(fb::OpType::QLinearConv, conv_attrs()), fused_activation(fb::ActivationKind::Relu));
  auto out = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const uint8_t* got = (*out)[0].data<uint8_t>();
  for (int64_t o = 0; o < m; ++o) {
    for (int64_t p = 0; p < pixels; ++p) {
      double real = 0;
      for (int64_t i = 0; i < c; ++i) {
        real += double{xs} * (x.data<uint8_t>()[i * pixels + p] - xz) * double{ws} * w.data<int8_t>()[o * c + i];
      }
      real += double{rs} * (r.data<uint8_t>()[o * pixels + p] - rz);
      const double want = std::clamp(std::nearbyint(std::max(real, 0.0) / ys) + yz, 0.0, 255.0);
      EXPECT_EQ(got[o * pixels + p], want) << "channel " << o << ", pixel " << p;
    }
  }
}

TEST(QLinearConvOps, RejectsABadResidual) {
  const fb::OpT op = make_op(fb::OpType::QLinearConv, conv_attrs());
  Inputs inputs = {random_tensor(DType::U8, {1, 2, 3, 3}, 1, 0, 256), scalar_of(DType::F32, 0.1),
                   scalar_of(DType::U8, 0), random_tensor(DType::I8, {3, 2, 1, 1}, 2, -128, 128),
                   scalar_of(DType::F32, 0.1), scalar_of(DType::I8, 0), scalar_of(DType::F32, 0.1),
                   scalar_of(DType::U8, 0), std::nullopt, random_tensor(DType::U8, {1, 3, 3, 2}, 3, 0, 256),
                   scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 0)};
  auto out = run_op(op, inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("residual R has shape 1x3x3x2; expected the output's, 1x3x3x3"),
            std::string::npos) << out.status().to_string();
  inputs.pop_back();
  out = run_op(op, inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("needs all of inputs 9-11"), std::string::npos) << out.status().to_string();
}

// Prepare packs the weights and the patch gather's table for the input size
// it sees; a run at another size must not use that table.
TEST(QLinearConvOps, PreparedForOneSizeRunsAnother) {
  const fb::ConvAttrsT a = conv_attrs({1, 1}, {1, 1, 1, 1});
  auto params = [](const Tensor& x) {
    return Inputs{x,
                  scalar_of(DType::F32, 0.01),
                  scalar_of(DType::U8, 120),
                  random_tensor(DType::I8, {6, 4, 3, 3}, 2, -128, 128),
                  scalar_of(DType::F32, 0.02),
                  scalar_of(DType::I8, 0),
                  scalar_of(DType::F32, 0.05),
                  scalar_of(DType::U8, 128)};
  };
  const Inputs prepared = params(random_tensor(DType::U8, {1, 4, 12, 12}, 1, 0, 256));
  const Inputs run = params(random_tensor(DType::U8, {1, 4, 7, 9}, 3, 0, 256));
  const fb::OpT op = make_op(fb::OpType::QLinearConv, a);
  auto expected = run_op(op, run, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  for (int threads : {1, 2}) {
    auto actual = run_op(op, run, Impl::kCpu, threads, &prepared);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], (*expected)[0], 0.0, 1.0, "threads " + std::to_string(threads));
  }
}

TEST(QLinearConvOps, RejectsBadParameters) {
  fb::OpT op = make_op(fb::OpType::QLinearConv, conv_attrs());
  Inputs inputs = {random_tensor(DType::U8, {1, 2, 3, 3}, 1, 0, 256), scalar_of(DType::F32, 0.1),
                   scalar_of(DType::U8, 0), random_tensor(DType::I8, {3, 2, 1, 1}, 2, -128, 128),
                   random_tensor(DType::F32, {2}, 3, 0.1, 0.2),  // neither one nor one per channel
                   scalar_of(DType::I8, 0), scalar_of(DType::F32, 0.1), scalar_of(DType::U8, 0)};
  auto out = run_op(op, inputs, Impl::kCpu);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("w_scale has shape 2; expected one value or one per output channel (3)"), std::string::npos) << out.status().to_string();
}

// A scale that is NaN, infinite, 0 or negative is refused on every backend,
// naming it (the requantisation would convert a NaN to int32).
TEST(QLinearConvOps, RejectsUnusableScales) {
  fb::OpT op = make_op(fb::OpType::QLinearConv, conv_attrs());
  const Inputs good = {random_tensor(DType::U8, {1, 2, 3, 3}, 1, 0, 256),
                       scalar_of(DType::F32, 0.1),
                       scalar_of(DType::U8, 0),
                       random_tensor(DType::I8, {3, 2, 1, 1}, 2, -128, 128),
                       random_tensor(DType::F32, {3}, 3, 0.1, 0.2),
                       scalar_of(DType::I8, 0),
                       scalar_of(DType::F32, 0.1),
                       scalar_of(DType::U8, 0)};
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    ASSERT_TRUE(run_op(op, good, impl).ok());
    for (double bad : {std::nan(""), HUGE_VAL, 0.0, -0.1}) {
      for (auto [index, name] : {std::pair<size_t, std::string>{1, "x_scale"}, {4, "w_scale"}, {6, "y_scale"}}) {
        Inputs inputs = good;
        inputs[index] = index == 4 ? Tensor::from_vector<float>({3}, {0.1f, static_cast<float>(bad), 0.1f})
                                   : scalar_of(DType::F32, bad);
        auto out = run_op(op, inputs, impl);
        ASSERT_FALSE(out.ok()) << name << " " << bad;
        EXPECT_NE(out.status().message().find(name + " is "), std::string::npos) << out.status().to_string();
        EXPECT_NE(out.status().message().find("scales must be finite and above 0"), std::string::npos)
            << out.status().to_string();
      }
    }
  }
}

// ConvInteger: the GEMM's sums stored as int32 (exact: equal to the
// reference). ONNX's example first.
TEST(ConvIntegerOps, MatchesOnnxExample) {
  const Inputs inputs = {Tensor::from_vector<uint8_t>({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10}),
                         Tensor::from_vector<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1}), scalar_of(DType::U8, 1)};
  const Tensor want = Tensor::from_vector<int32_t>({1, 1, 2, 2}, {12, 16, 24, 28});
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(fb::OpType::ConvInteger, conv_attrs()), inputs, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expect_tensors_near((*out)[0], want, 0.0, 0.0, impl_name(impl));
  }
}

// Geometries of the GEMM's patch paths (shifted planes, stride phases,
// gathered, groups; depthwise too, through the GEMM), dtype pairs, zero
// points absent, per tensor and per output channel, and an x zero point
// other than the one prepare saw (computed per run: the bias of the byte
// quads, the shift of the int16 pairs), on this CPU's own target and
// every other.
TEST(ConvIntegerOps, CpuEqualsReference) {
  struct Case {
    Shape x, w;
    fb::ConvAttrsT attrs;
    DType x_type, w_type;
    int zero_points;  // 0: none; 1: per tensor; 2: w per channel; 3: x's only, w in [-64, 63]
  };
  const std::vector<Case> cases = {
      {{1, 16, 9, 9}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), DType::U8, DType::I8, 3},
      {{1, 8, 12, 12}, {16, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}), DType::U8, DType::U8, 2},
      {{1, 64, 5, 5}, {40, 64, 1, 1}, conv_attrs(), DType::I8, DType::I8, 1},
      {{2, 6, 7, 7}, {9, 2, 3, 3}, conv_attrs({1, 1}, {0, 1, 2, 1}, {}, 3), DType::U8, DType::I8, 0},
      {{1, 8, 10, 10}, {8, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 8), DType::U8, DType::I8, 3},
  };
  const auto check_all = [&] {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      SCOPED_TRACE("X " + shape_to_string(c.x) + " " + dtype_name(c.x_type) + ", W " + shape_to_string(c.w) + " " +
                   dtype_name(c.w_type) + ", zero points " + std::to_string(c.zero_points));
      const auto seed = static_cast<uint32_t>(11 * i);
      const auto low = [](DType d) { return d == DType::I8 ? -128.0 : 0.0; };
      const auto high = [](DType d) { return d == DType::I8 ? 128.0 : 256.0; };
      const bool narrow = c.zero_points == 3 && c.w_type == DType::I8;
      Inputs run = {
          random_tensor(c.x_type, c.x, seed, low(c.x_type), high(c.x_type)),
          random_tensor(c.w_type, c.w, seed + 1, narrow ? -64 : low(c.w_type), narrow ? 64 : high(c.w_type))};
      Inputs prepared = run;
      if (c.zero_points > 0) {
        run.push_back(scalar_of(c.x_type, c.x_type == DType::I8 ? 5 : 117));
        prepared.push_back(scalar_of(c.x_type, c.x_type == DType::I8 ? -30 : 3));
        const Tensor w_zero = c.zero_points == 2
                                  ? random_tensor(c.w_type, {c.w[0]}, seed + 2, low(c.w_type), high(c.w_type))
                              : c.zero_points == 3 ? scalar_of(c.w_type, c.w_type == DType::I8 ? 0 : 128)
                                                   : scalar_of(c.w_type, c.w_type == DType::I8 ? -3 : 125);
        run.push_back(w_zero);
        prepared.push_back(w_zero);
      }
      const fb::OpT op = make_op(fb::OpType::ConvInteger, c.attrs);
      auto expected = run_op(op, run, Impl::kReference);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      for (int threads : {1, 2}) {
        for (const Inputs* at_prepare :
             {static_cast<const Inputs*>(nullptr), static_cast<const Inputs*>(&prepared)}) {
          auto actual = run_op(op, run, Impl::kCpu, threads, at_prepare);
          ASSERT_TRUE(actual.ok()) << actual.status().to_string();
          expect_tensors_near(
              (*actual)[0], (*expected)[0], 0.0, 0.0,
              "threads " + std::to_string(threads) + (at_prepare ? ", another x zero point at prepare" : ""));
        }
      }
    }
  };
  check_all();
  for_each_simd_target(check_all);
}

}  // namespace
}  // namespace mote::test
