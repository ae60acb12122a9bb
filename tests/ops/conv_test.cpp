#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/conv_dilation_phases.hpp"
#include "runtime/cpu/conv_winograd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::test {
namespace {

// Sums of a few hundred float products: the optimised kernels round
// differently from the double-precision reference.
constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-4;

// Compares the optimised kernel with the reference on random X, W (and B),
// when the geometry is valid; returns false (and checks nothing) otherwise.
bool check_conv(const Shape& x, const Shape& w, bool bias, const fb::ConvAttrsT& a,
                const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  if (!resolve_conv(a, x, w).ok()) return false;
  fb::OpT op = make_op(fb::OpType::Conv, a);
  if (act) op = with_fused(std::move(op), *act);
  Inputs inputs = {random_tensor(DType::F32, x, seed), random_tensor(DType::F32, w, seed + 1)};
  if (bias) inputs.push_back(random_tensor(DType::F32, {w[0]}, seed + 2));
  SCOPED_TRACE("X " + shape_to_string(x) + " W " + shape_to_string(w) + (bias ? " with bias" : "") +
               (act ? " fused " + fused_name(*act) : ""));
  expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
  return true;
}

TEST(ConvOps, GeneralCpuMatchesReference) {
  struct Variant {
    Shape kernel;
    fb::ConvAttrsT attrs;
    int64_t in_channels, out_channels;
  };
  const std::vector<Variant> variants = {
      {{3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), 3, 4},
      {{3, 3}, conv_attrs({2, 2}, {0, 1, 2, 1}), 3, 5},          // asymmetric pads, stride 2
      {{3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}), 2, 3},  // dilation
      {{3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2), 4, 6},   // groups
      {{2, 3}, conv_attrs({1, 2}, {1, 0, 0, 2}, {2, 1}), 3, 2},  // rectangular everything
      {{5, 5}, conv_attrs({1, 1}, {2, 2, 2, 2}), 2, 3},
      {{1, 1}, conv_attrs({2, 2}), 5, 7},  // 1x1 with stride: phase planes, no grid columns dropped
      {{3, 3}, conv_attrs({3, 1}, {1, 1, 1, 1}, {1, 1}, 3), 6, 3},
  };
  int checked = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& var = variants[v];
    for (int64_t n : {1, 2}) {
      for (int64_t h : {1, 3, 13}) {
        for (int64_t w : odd_sizes()) {
          Shape x = {n, var.in_channels, h, w};
          Shape wt = {var.out_channels, var.in_channels / var.attrs.group, var.kernel[0], var.kernel[1]};
          const bool bias = (h + w + v) % 2 == 0;
          checked += check_conv(x, wt, bias, var.attrs, nullptr, static_cast<uint32_t>(v * 100 + h + w));
        }
      }
    }
  }
  EXPECT_GT(checked, 150);
}

TEST(ConvOps, PointwiseCpuMatchesReference) {
  for (int64_t n : {1, 2}) {
    for (int64_t size : odd_sizes()) {
      check_conv({n, 5, 3, size}, {7, 5, 1, 1}, true, conv_attrs());
      check_conv({n, 6, size, 1}, {4, 3, 1, 1}, false, conv_attrs({}, {}, {}, 2));
      check_conv({n, 16, 1, size}, {33, 16, 1, 1}, true, conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}));
    }
  }
}

TEST(ConvOps, OneDimensionalCpuMatchesReference) {
  for (int64_t length : odd_sizes()) {
    EXPECT_TRUE(check_conv({2, 3, length}, {4, 3, 3}, true, conv_attrs({1}, {1, 1})));
    EXPECT_TRUE(check_conv({1, 4, length}, {6, 2, 3}, false, conv_attrs({2}, {2, 2}, {2}, 2)));
    EXPECT_TRUE(check_conv({1, 4, length}, {8, 4, 1}, true, conv_attrs()));
    check_conv({1, 3, length}, {2, 3, 5}, true, conv_attrs({3}, {0, 0}));
  }
}

// 2-D layers over a unit dimension the kernel spans without padding run as
// 1-D convolutions along the other ([N, C, L, 1] under k x 1, [N, C, 1, L]
// under 1 x k); with padding or a kernel across the unit dimension they stay
// 2-D. Both forms, strides, dilations, groups and depthwise layers.
TEST(ConvOps, UnitDimensionLayersCpuMatchReference) {
  int checked = 0;
  for (int64_t length : {1, 5, 13, 127, 300}) {
    for (bool column : {true, false}) {
      auto x = [&](int64_t n, int64_t c) { return column ? Shape{n, c, length, 1} : Shape{n, c, 1, length}; };
      auto w = [&](int64_t m, int64_t c, int64_t k) { return column ? Shape{m, c, k, 1} : Shape{m, c, 1, k}; };
      // Stride, padding before and after, dilation along the length; the
      // unit dimension's stride and dilation do not matter.
      auto two_d = [&](int64_t s, int64_t before, int64_t after, int64_t d, int64_t group) {
        return column ? conv_attrs({s, 3}, {before, 0, after, 0}, {d, 2}, group)
                      : conv_attrs({3, s}, {0, before, 0, after}, {2, d}, group);
      };
      checked += check_conv(x(2, 8), w(16, 8, 5), true, two_d(1, 2, 2, 1, 1));
      checked += check_conv(x(1, 6), w(4, 6, 3), false, two_d(2, 0, 2, 1, 1));
      checked += check_conv(x(1, 6), w(9, 2, 3), true, two_d(1, 3, 1, 2, 3));
      checked += check_conv(x(1, 64), w(64, 64, 7), true, two_d(1, 3, 3, 1, 1));
      checked += check_conv(x(1, 8), w(8, 1, 5), true, two_d(1, 2, 2, 1, 8));  // depthwise
      checked += check_conv(x(1, 8), w(8, 1, 5), false, two_d(2, 1, 2, 1, 8));
      // Depthwise with a length stride of 3, which its row kernels do not
      // take: the column stays 2-D (a stride of 3 down its planes).
      const fb::ConvAttrsT stride3 =
          column ? conv_attrs({3, 1}, {2, 0, 2, 0}, {}, 8) : conv_attrs({1, 3}, {0, 2, 0, 2}, {}, 8);
      checked += check_conv(x(1, 8), w(8, 1, 5), true, stride3);
      // Padded across the unit dimension: stays 2-D.
      checked += check_conv(x(1, 4), w(5, 4, 3), true, conv_attrs({}, {1, 1, 1, 1}));
    }
  }
  EXPECT_GT(checked, 50);
}

TEST(ConvOps, ThreeDimensionalCpuMatchesReference) {
  EXPECT_TRUE(
      check_conv({1, 4, 5, 6, 7}, {6, 2, 3, 2, 3}, true, conv_attrs({1, 2, 1}, {1, 0, 1, 1, 1, 0}, {2, 1, 1}, 2)));
  EXPECT_TRUE(check_conv({2, 3, 3, 4, 13}, {2, 3, 1, 1, 1}, false, conv_attrs()));
  EXPECT_TRUE(check_conv({1, 2, 4, 4, 4}, {3, 2, 3, 3, 3}, true, conv_attrs({}, {}, {}, 1, fb::AutoPad::SameUpper)));
}

TEST(ConvOps, DepthwiseCpuMatchesReference) {
  // Every SIMD target: the row path's last partial vectors load differently
  // where masked loads may fault (AVX2, NEON) and where they may not (AVX-512).
  for_each_simd_target([] {
    int checked = 0;
    for (int64_t k : {3, 5}) {
      for (int64_t stride : {1, 2}) {
        for (int64_t dilation : {1, 2}) {
          for (int64_t h : {1, 3, 13}) {
            for (int64_t w : {1, 3, 13, 40, 127}) {
              const int64_t p = k / 2 * dilation;
              fb::ConvAttrsT a = conv_attrs({stride, stride}, {p, p, p, p}, {dilation, dilation}, 5);
              checked += check_conv({2, 5, h, w}, {5, 1, k, k}, (h + w) % 2 == 1, a, nullptr,
                                    static_cast<uint32_t>(k * 1000 + h * 10 + w));
              // Asymmetric padding, different strides per dimension.
              fb::ConvAttrsT b = conv_attrs({3, stride}, {0, p, p + 1, 0}, {1, dilation}, 5);
              checked += check_conv({1, 5, h, w}, {5, 1, k, k}, true, b);
              // Asymmetric padding, equal strides (3x3 takes FixedPlane).
              fb::ConvAttrsT c = conv_attrs({stride, stride}, {p + 1, p, p, p}, {dilation, dilation}, 5);
              checked += check_conv({1, 5, h, w}, {5, 1, k, k}, false, c);
            }
          }
        }
      }
    }
    EXPECT_GT(checked, 150);
    // Narrow planes go through channel blocks (runtime/cpu/conv_depthwise.cpp):
    // several blocks and a partial last one, batches, both strides, 5x5,
    // dilation, padding on one side only.
    for (int64_t channels : {16, 37}) {
      for (int64_t size : {7, 14, 15}) {
        EXPECT_TRUE(check_conv({2, channels, size, size}, {channels, 1, 3, 3}, true,
                               conv_attrs({1, 1}, {1, 1, 1, 1}, {}, channels)));
        EXPECT_TRUE(check_conv({1, channels, size, size + 3}, {channels, 1, 5, 5}, channels % 2 == 0,
                               conv_attrs({2, 2}, {2, 0, 1, 2}, {1, 2}, channels)));
      }
    }
    // 5x5 and 7x7 stride-1 layers over whole blocks of 16 channels take
    // blocks on wide planes too (AVX-512), with padding on every side or
    // none; 7x7 in row tiles of 8 (41-wide rows) and of 7 (rows of 7, 14
    // and 28), a partial last block on narrow planes.
    for (int64_t channels : {16, 48}) {
      for (int64_t k : {5, 7}) {
        const int64_t p = k / 2;
        EXPECT_TRUE(check_conv({1, channels, 30, 41}, {channels, 1, k, k}, true,
                               conv_attrs({1, 1}, {p, p, p, p}, {}, channels)));
        EXPECT_TRUE(check_conv({2, channels, 23, 33}, {channels, 1, k, k}, false,
                               conv_attrs({1, 1}, {0, 1, 2, 0}, {}, channels)));
      }
    }
    for (int64_t channels : {16, 37}) {
      for (int64_t size : {7, 14, 28}) {
        EXPECT_TRUE(check_conv({1, channels, size, size}, {channels, 1, 7, 7}, true,
                               conv_attrs({1, 1}, {3, 3, 3, 3}, {}, channels)));
      }
    }
    // 1-D depthwise, and a width stride the depthwise path leaves to the
    // general path (phase planes).
    for (int64_t length : odd_sizes()) {
      EXPECT_TRUE(check_conv({1, 8, length}, {8, 1, 3}, true, conv_attrs({1}, {1, 1}, {}, 8)));
      EXPECT_TRUE(check_conv({1, 8, length}, {8, 1, 5}, false, conv_attrs({2}, {2, 2}, {}, 8)));
      EXPECT_TRUE(check_conv({1, 4, 9, length}, {4, 1, 3, 3}, true, conv_attrs({3, 3}, {1, 1, 1, 1}, {}, 4)));
    }
  });
}

// Inputs of at most four channels take the direct kernel (conv_direct): on
// every SIMD target, rows whose last tile has one, two or three vectors with
// a partial last one (widths around multiples of 8 and 16 lanes), both width
// strides and a third the kernel leaves to the general path (phase planes,
// or im2col with dilation), height strides, dilation,
// one-sided padding, 1-D, batches, and output channels (1 to 9, 14 and 20:
// up to three blocks) that leave the last block of eight, or the second
// half of a block where a tile takes half (16-register targets), partly
// empty.
TEST(ConvOps, FewChannelsDirectCpuMatchesReference) {
  for_each_simd_target([] {
    int checked = 0;
    uint32_t seed = 1;
    for (int64_t width : {1, 7, 9, 17, 23, 25, 41, 47, 49, 57, 111}) {
      for (int64_t stride : {1, 2, 3}) {
        const int64_t channels = 1 + width % 4, out_channels = 1 + width % 9;
        checked += check_conv({2, channels, 5, width}, {out_channels, channels, 3, 3}, width % 2 == 1,
                              conv_attrs({stride, stride}, {1, 1, 1, 1}), nullptr, seed++);
        checked += check_conv({1, 3, 9, width}, {8 + 6 * (width % 3), 3, 7, 7}, true,
                              conv_attrs({2, stride}, {3, 3, 2, 3}), nullptr, seed++);
        checked += check_conv({1, 4, 6, width}, {5, 4, 2, 3}, false,
                              conv_attrs({1, stride}, {0, 2, 1, 0}, {2, 2}), nullptr, seed++);
        checked += check_conv({1, 2, 4, width}, {6, 2, 1, 1}, true, conv_attrs({1, stride}), nullptr, seed++);
        checked += check_conv({2, 3, width}, {7, 3, 5}, true, conv_attrs({stride}, {2, 1}), nullptr, seed++);
      }
    }
    EXPECT_GT(checked, 150);
    // Fused activations and residuals in the pass over finished rows, with
    // batches (the residual's offset) and enough input rows to split the
    // padding across tasks.
    std::vector<fb::FusedActivationT> acts = all_fused_activations();
    acts.emplace_back();  // none
    for (const fb::FusedActivationT& act : acts) {
      EXPECT_TRUE(check_conv({2, 3, 19, 23}, {6, 3, 3, 3}, true, conv_attrs({2, 2}, {1, 1, 1, 1}), &act, seed++));
      const fb::ConvAttrsT attrs = conv_attrs({1, 1}, {1, 1, 1, 1});
      fb::OpT op = with_fused(make_op(fb::OpType::Conv, attrs), act);
      const Shape x = {2, 3, 17, 21}, w = {5, 3, 3, 3};
      Inputs inputs = {random_tensor(DType::F32, x, seed), random_tensor(DType::F32, w, seed + 1),
                       random_tensor(DType::F32, {5}, seed + 2)};
      inputs.push_back(random_tensor(DType::F32, resolve_conv(attrs, x, w)->output_shape(), seed + 3));
      SCOPED_TRACE("residual, fused " + fused_name(act));
      expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
      seed += 4;
    }
  });
}

// NaN inputs give NaN outputs on the direct, depthwise, GEMM and Winograd
// (F(4) and F(2)) paths, with no activation (infinite bounds) and through
// Relu and Clip, as in the reference.
TEST(ConvOps, NaNPropagatesThroughEveryPath) {
  fb::FusedActivationT relu;
  relu.kind = fb::ActivationKind::Relu;
  fb::FusedActivationT clip;
  clip.kind = fb::ActivationKind::Clip;
  clip.min = -1.0f;
  clip.max = 1.0f;
  // Winograd spreads one NaN over its whole tile (the reference only over
  // the pixels it reaches), so its cases are inputs of NaN everywhere.
  struct Case {
    Shape x, w;
    fb::ConvAttrsT attrs;
    int winograd_tile = 0;  // the tile the case must take; 0: not Winograd
  };
  const fb::ConvAttrsT same_3x3 = conv_attrs({1, 1}, {1, 1, 1, 1});
  const Case cases[] = {
      {{1, 3, 9, 20}, {4, 3, 3, 3}, same_3x3},                                   // direct
      {{1, 8, 9, 20}, {8, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 8)},    // depthwise rows
      {{1, 16, 5, 5}, {16, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 16)},  // depthwise blocks
      {{1, 8, 9, 20}, {12, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},          // phase planes + GEMM
      {{1, 16, 16, 16}, {16, 16, 3, 3}, same_3x3, 4},                            // Winograd F(4)
      {{1, 16, 8, 8}, {16, 16, 3, 3}, same_3x3, 2},                              // Winograd F(2)
  };
  for (const Case& c : cases) {
    Tensor x = random_tensor(DType::F32, c.x, 3);
    if (c.winograd_tile) {
      ASSERT_EQ(cpu::winograd_tile(*resolve_conv(c.attrs, c.x, c.w)), c.winograd_tile);
      std::fill_n(x.data<float>(), shape_numel(c.x), std::numeric_limits<float>::quiet_NaN());
    } else {
      x.data<float>()[shape_numel(c.x) / 2] = std::numeric_limits<float>::quiet_NaN();
    }
    const std::vector<const fb::FusedActivationT*> acts = {nullptr, &relu, &clip};
    for (const fb::FusedActivationT* act : acts) {
      fb::OpT op = make_op(fb::OpType::Conv, c.attrs);
      if (act) op = with_fused(std::move(op), *act);
      SCOPED_TRACE("X " + shape_to_string(c.x) + " W " + shape_to_string(c.w) +
                   (act ? " fused " + fused_name(*act) : ""));
      for_each_simd_target([&] {
        expect_cpu_matches_reference(op, {x, random_tensor(DType::F32, c.w, 4)}, kRtol, kAtol);
      });
    }
  }
}

// The row path leaves its zero margins in the thread's scratch for the next
// plane of the same geometry: layers whose padded rows are as long but whose
// data reaches further (wider, other padding; a sweep of widths, so that some
// share the padded length whatever the vector width), channel blocks
// (another layout in the same buffer) and the other stride run in between,
// and each must still match the reference.
TEST(ConvOps, DepthwiseScratchReuseCpuMatchesReference) {
  for_each_simd_target([] {
    const auto dw = [](int64_t width, int64_t pad_left, int64_t stride, int64_t channels = 3) {
      EXPECT_TRUE(check_conv({2, channels, 9, width}, {channels, 1, 3, 3}, true,
                             conv_attrs({stride, stride}, {1, pad_left, 1, 1}, {}, channels)));
    };
    // Output width lanes / 2 at most: the channel-block path.
    const int64_t narrow = std::max<int64_t>(1, cpu::depthwise_block_channels() / 2);
    for (int64_t stride : {1, 2}) {
      for (int64_t width = 33; width <= 48; width += 3) {
        for (int64_t pad_left : {0, 1, 2}) {
          dw(width, pad_left, stride);
          dw(40, 1, stride);
        }
      }
      dw(narrow, 1, 1, 16);
      dw(40, 1, stride);
    }
  });
}

TEST(ConvOps, AutoPadModesCpuMatchReference) {
  for (fb::AutoPad mode : {fb::AutoPad::NotSet, fb::AutoPad::SameUpper, fb::AutoPad::SameLower, fb::AutoPad::Valid}) {
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t k : {1, 3, 4}) {
        for (int64_t size : {1, 12, 13}) {
          SCOPED_TRACE(std::string("auto_pad ") + fb::EnumNameAutoPad(mode));
          check_conv({1, 3, size, size + 1}, {4, 3, k, k}, true, conv_attrs({stride, stride}, {}, {}, 1, mode));
          check_conv({1, 4, size, size}, {4, 1, k, k}, false, conv_attrs({stride, stride}, {}, {1, 2}, 4, mode));
        }
      }
    }
  }
}

TEST(ConvOps, FusedActivationsCpuMatchReference) {
  for (const auto& act : all_fused_activations()) {
    EXPECT_TRUE(check_conv({1, 3, 13, 13}, {5, 3, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}), &act));
    EXPECT_TRUE(check_conv({2, 6, 5, 13}, {6, 3, 3, 3}, false, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2), &act));
    EXPECT_TRUE(check_conv({1, 8, 7, 9}, {12, 8, 1, 1}, true, conv_attrs(), &act));
    EXPECT_TRUE(check_conv({1, 7, 13, 35}, {7, 1, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 7), &act));
    EXPECT_TRUE(check_conv({1, 7, 13, 35}, {7, 1, 5, 5}, true, conv_attrs({2, 2}, {2, 2, 2, 2}, {}, 7), &act));
    EXPECT_TRUE(check_conv({1, 20, 7, 7}, {20, 1, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 20), &act));
    EXPECT_TRUE(check_conv({1, 4, 127}, {4, 4, 3}, true, conv_attrs({1}, {1, 1}), &act));
  }
}

// Small images with at least 64 output channels per group run the turned
// product (pixels along M) with patches gathered from a padded copy of the
// input: kernels, strides, dilations and pads of every kind, groups,
// batches, 1-D and 3-D, every fused activation.
TEST(ConvOps, GatheredPatchesCpuMatchReference) {
  EXPECT_TRUE(check_conv({1, 12, 7, 7}, {64, 12, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1})));
  EXPECT_TRUE(check_conv({2, 24, 14, 15}, {128, 12, 3, 3}, true, conv_attrs({2, 2}, {2, 0, 1, 2}, {2, 1}, 2)));
  EXPECT_TRUE(check_conv({1, 9, 16, 16}, {70, 9, 5, 3}, false, conv_attrs({1, 2}, {2, 1, 2, 1})));
  EXPECT_TRUE(check_conv({1, 32, 14, 14}, {64, 32, 1, 1}, true, conv_attrs({2, 2})));
  EXPECT_TRUE(check_conv({1, 16, 100}, {64, 16, 5}, true, conv_attrs({2}, {2, 1})));
  EXPECT_TRUE(check_conv({1, 8, 4, 5, 6}, {64, 8, 3, 3, 3}, true, conv_attrs({1, 1, 1}, {1, 1, 1, 1, 1, 1})));
  for (const auto& act : all_fused_activations()) {
    EXPECT_TRUE(check_conv({1, 16, 9, 9}, {64, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}), &act));
  }
}

// 2-D layers on the general path read their patches from the input split
// into stride phases (conv_phase_planes.hpp): strides 2 and 3, stride 2 on
// one axis only, kernels as large as, larger than and smaller than the
// stride (1x1, 2x2, 3x3, 5x5, 7x7), pads on any side, stride 1 without
// Winograd (few channels), groups, batches, grids with and without dropped
// columns, several bands of rows (64 output channels on 101-wide grid rows),
// residuals, every fused activation. Five or more input channels, and
// outputs too large for the turned product, keep them off the other paths.
TEST(ConvOps, PhasePlanesCpuMatchReference) {
  struct Case {
    Shape x, w;
    fb::ConvAttrsT attrs;
  };
  const Case cases[] = {
      {{1, 8, 23, 29}, {12, 8, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},
      {{1, 6, 24, 31}, {10, 6, 3, 3}, conv_attrs({2, 2}, {0, 1, 2, 1})},
      {{2, 5, 27, 26}, {7, 5, 5, 5}, conv_attrs({2, 2}, {2, 2, 2, 2})},
      {{1, 6, 31, 33}, {9, 6, 3, 3}, conv_attrs({3, 3}, {1, 0, 1, 2})},
      {{1, 8, 34, 36}, {16, 8, 2, 2}, conv_attrs({2, 2})},
      {{1, 8, 36, 40}, {24, 8, 1, 1}, conv_attrs({2, 2})},
      {{1, 7, 35, 21}, {5, 7, 1, 1}, conv_attrs({3, 3})},
      {{1, 6, 20, 42}, {8, 6, 3, 3}, conv_attrs({1, 2}, {1, 1, 1, 1})},
      {{1, 8, 40, 38}, {6, 8, 7, 7}, conv_attrs({2, 2}, {3, 3, 3, 3})},
      {{1, 6, 25, 27}, {8, 6, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {{2, 12, 26, 30}, {10, 6, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}, {}, 2)},
      {{1, 6, 60, 200}, {64, 6, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},
  };
  std::vector<fb::FusedActivationT> acts = all_fused_activations();
  acts.emplace_back();  // none
  uint32_t seed = 7;
  for (const Case& c : cases) {
    auto g = resolve_conv(c.attrs, c.x, c.w);
    ASSERT_TRUE(g.ok()) << shape_to_string(c.x);
    for (size_t a = 0; a < acts.size(); ++a) {
      const fb::FusedActivationT& act = acts[a];
      const bool with_residual = a % 2 == 0;
      fb::OpT op = with_fused(make_op(fb::OpType::Conv, c.attrs), act);
      Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1)};
      const bool bias = a % 3 != 1;
      inputs.push_back(bias ? std::optional<Tensor>(random_tensor(DType::F32, {c.w[0]}, seed + 2)) : std::nullopt);
      if (with_residual) inputs.push_back(random_tensor(DType::F32, g->output_shape(), seed + 3));
      SCOPED_TRACE("X " + shape_to_string(c.x) + " W " + shape_to_string(c.w) + (bias ? " with bias" : "") +
                   (with_residual ? " with residual" : "") + " fused " + fused_name(act));
      expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
      seed += 10;
    }
  }
}

// Inputs whose phase planes pass 4 MiB are done in bands of output rows,
// each band's planes filled in turn: a 3x3 stride-2 layer (grid columns
// dropped) with a residual added in the copy-out, Relu, and two images (in
// parallel at 2 threads), and a 1x1 stride-2 one writing the output
// directly with the residual in the GEMM: each over two to four bands.
TEST(ConvOps, PhasePlanesInBandsCpuMatchReference) {
  fb::FusedActivationT relu;
  relu.kind = fb::ActivationKind::Relu;
  struct Case {
    Shape x, w;
    fb::ConvAttrsT attrs;
    const fb::FusedActivationT* act;
  };
  const Case cases[] = {
      {{2, 16, 260, 300}, {8, 16, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1}), &relu},
      {{1, 40, 500, 400}, {6, 40, 1, 1}, conv_attrs({2, 2}), nullptr},
  };
  uint32_t seed = 41;
  for (const Case& c : cases) {
    auto g = resolve_conv(c.attrs, c.x, c.w);
    ASSERT_TRUE(g.ok());
    fb::OpT op = make_op(fb::OpType::Conv, c.attrs);
    if (c.act) op = with_fused(std::move(op), *c.act);
    const Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1),
                           random_tensor(DType::F32, {c.w[0]}, seed + 2),
                           random_tensor(DType::F32, g->output_shape(), seed + 3)};
    SCOPED_TRACE("X " + shape_to_string(c.x) + " W " + shape_to_string(c.w));
    expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
    seed += 10;
  }
}

// A residual R (input 3, Y's shape) is added before the fused activation, on
// every path: pointwise, general (phase planes; im2col for 1-D and 3-D),
// the turned product of small
// images, Winograd, depthwise rows and channel blocks, 1-D and 3-D, with and
// without bias.
TEST(ConvOps, ResidualCpuMatchesReference) {
  struct Case {
    Shape x, w;
    fb::ConvAttrsT attrs;
  };
  const Case cases[] = {
      {{2, 8, 9, 10}, {12, 8, 1, 1}, conv_attrs()},
      {{1, 3, 17, 15}, {8, 3, 3, 3}, conv_attrs({2, 2}, {1, 1, 1, 1})},
      {{1, 12, 7, 7}, {64, 12, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {{2, 16, 20, 18}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {{2, 16, 7, 7}, {24, 16, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1})},
      {{1, 20, 31, 30}, {20, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 20)},
      {{2, 20, 7, 7}, {20, 1, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 20)},
      {{1, 4, 40}, {6, 4, 3}, conv_attrs({2}, {1, 1})},
      {{1, 3, 4, 5, 6}, {4, 3, 3, 3, 3}, conv_attrs({1, 1, 1}, {1, 1, 1, 1, 1, 1})},
      // Dilated, of a size whose phases Winograd would take without the residual.
      {{1, 16, 33, 33}, {16, 16, 3, 3}, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2})},
  };
  // The dilated case (the last) would take the dilation phases without its
  // residual, which Winograd over phases does not add.
  ASSERT_TRUE(cpu::dilation_phases_apply(*resolve_conv(
      cases[std::size(cases) - 1].attrs, cases[std::size(cases) - 1].x, cases[std::size(cases) - 1].w)));
  std::vector<fb::FusedActivationT> acts = all_fused_activations();
  acts.emplace_back();  // none
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (const fb::FusedActivationT& act : acts) {
      for (bool bias : {true, false}) {
        auto g = resolve_conv(c.attrs, c.x, c.w);
        ASSERT_TRUE(g.ok());
        fb::OpT op = with_fused(make_op(fb::OpType::Conv, c.attrs), act);
        Inputs inputs = {random_tensor(DType::F32, c.x, seed), random_tensor(DType::F32, c.w, seed + 1)};
        inputs.push_back(bias ? std::optional<Tensor>(random_tensor(DType::F32, {c.w[0]}, seed + 2)) : std::nullopt);
        inputs.push_back(random_tensor(DType::F32, g->output_shape(), seed + 3));
        SCOPED_TRACE("X " + shape_to_string(c.x) + " W " + shape_to_string(c.w) + (bias ? " with bias" : "") +
                     " fused " + fused_name(act));
        expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
        seed += 10;
      }
    }
  }
}

TEST(ConvOps, ResidualOfAnotherShapeIsRefused) {
  fb::OpT op = make_op(fb::OpType::Conv, conv_attrs());
  Inputs inputs = {random_tensor(DType::F32, {1, 2, 4, 4}, 1), random_tensor(DType::F32, {3, 2, 1, 1}, 2),
                   std::nullopt, random_tensor(DType::F32, {1, 3, 4, 1}, 3)};
  auto run = run_op(op, inputs, Impl::kCpu);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("residual R has shape 1x3x4x1, expected the output's 1x3x4x4"),
            std::string::npos)
      << run.status().message();
}

// 3x3 stride-1 layers with at least 16 channels and 16 output tiles take the
// Winograd path (runtime/cpu/conv_winograd.cpp): partial edge tiles, padding
// on any side, other channel counts in and out, batches, every fused
// activation.
TEST(ConvOps, WinogradCpuMatchesReference) {
  for (const auto& pads : std::vector<std::vector<int64_t>>{{1, 1, 1, 1}, {0, 0, 0, 0}, {2, 0, 1, 2}}) {
    EXPECT_TRUE(check_conv({1, 16, 16, 16}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, pads)));
    EXPECT_TRUE(check_conv({2, 24, 17, 23}, {16, 24, 3, 3}, false, conv_attrs({1, 1}, pads)));
    EXPECT_TRUE(check_conv({1, 16, 21, 18}, {40, 16, 3, 3}, true, conv_attrs({1, 1}, pads)));
  }
  // ResNet's 14x14 stage in miniature: 16 tiles, more channels out than in.
  EXPECT_TRUE(check_conv({1, 48, 14, 14}, {80, 48, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1})));
  // 13 tiles a row: the output transform takes 4 tile rows at a time, then 2.
  EXPECT_TRUE(check_conv({1, 16, 22, 50}, {24, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1})));
  for (const auto& act : all_fused_activations()) {
    EXPECT_TRUE(check_conv({1, 16, 19, 22}, {24, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}), &act));
  }
}

// F(2x2, 3x3) on images too small for 16 tiles of 4x4 (7x7 and 8x8, or more
// tiles from 128 channels): partial edge tiles, padding on any side, other
// channel counts in and out, batches, every fused activation. Each shape
// checks first that it takes that path.
TEST(ConvOps, WinogradF2CpuMatchesReference) {
  const auto check_f2 = [](const Shape& x, const Shape& w, bool bias, const fb::ConvAttrsT& a,
                           const fb::FusedActivationT* act = nullptr) {
    auto g = resolve_conv(a, x, w);
    ASSERT_TRUE(g.ok());
    ASSERT_EQ(cpu::winograd_tile(*g), 2) << "X " << shape_to_string(x) << " W " << shape_to_string(w);
    EXPECT_TRUE(check_conv(x, w, bias, a, act));
  };
  // Every SIMD target: partial vectors of tiles store differently per target.
  for_each_simd_target([&] {
    check_f2({1, 16, 7, 7}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}));
    check_f2({1, 16, 9, 9}, {24, 16, 3, 3}, false, conv_attrs({1, 1}, {0, 0, 0, 0}));
  });
  check_f2({1, 20, 6, 7}, {16, 20, 3, 3}, true, conv_attrs({1, 1}, {2, 0, 1, 2}));
  check_f2({2, 24, 8, 8}, {40, 24, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}));
  check_f2({1, 16, 4, 16}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}));
  check_f2({1, 128, 10, 11}, {128, 128, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}));
  for (const auto& act : all_fused_activations()) {
    check_f2({1, 16, 7, 7}, {24, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}), &act);
  }
}

// Dilated 3x3 stride-1 layers run as Winograd over their dilation phases
// (runtime/cpu/conv_dilation_phases.cpp): dilations along one axis or both,
// of 2 to 4; "same" padding, none, and uneven padding larger or smaller than
// the dilation (phases with zeros before them or not); sizes that leave the
// phases one row apart; batches; every fused activation. Each shape checks
// first that it takes that path (with a residual, a layer takes im2col:
// ResidualCpuMatchesReference).
TEST(ConvOps, DilatedWinogradCpuMatchesReference) {
  const auto check_phases = [](const Shape& x, const Shape& w, bool bias, const fb::ConvAttrsT& a,
                               const fb::FusedActivationT* act = nullptr) {
    auto g = resolve_conv(a, x, w);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(cpu::dilation_phases_apply(*g)) << "X " << shape_to_string(x) << " W " << shape_to_string(w);
    EXPECT_TRUE(check_conv(x, w, bias, a, act));
  };
  check_phases({1, 16, 33, 33}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}));
  check_phases({2, 16, 38, 35}, {24, 16, 3, 3}, false, conv_attrs({1, 1}, {0, 0, 0, 0}, {2, 2}));
  check_phases({1, 24, 52, 49}, {16, 24, 3, 3}, true, conv_attrs({1, 1}, {3, 1, 2, 4}, {3, 3}));
  check_phases({1, 16, 26, 29}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {4, 4, 4, 4}, {4, 4}));
  check_phases({1, 16, 25, 23}, {20, 16, 3, 3}, true, conv_attrs({1, 1}, {5, 1, 6, 1}, {2, 1}));
  check_phases({1, 16, 21, 31}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 3, 1, 3}, {1, 3}));
  for (const auto& act : all_fused_activations()) {
    check_phases({1, 16, 27, 26}, {24, 16, 3, 3}, true, conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2}), &act);
  }
}

// Wide enough for the Winograd transform buffers to be split into bands of
// tile rows (slow under qemu: left out of the arm64 quick run).
TEST(ConvOps, WinogradBandsCpuMatchesReference) {
  EXPECT_TRUE(check_conv({1, 16, 80, 600}, {16, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1})));
}

// Large enough for several column tiles per image, run as parallel tasks.
TEST(ConvOps, ManyColumnTilesCpuMatchesReference) {
  EXPECT_TRUE(check_conv({1, 64, 30, 34}, {32, 64, 3, 5}, true, conv_attrs({1, 1}, {1, 2, 1, 2})));
  EXPECT_TRUE(check_conv({2, 32, 17, 19}, {16, 16, 3, 3}, false, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 2)));
}

// Small images with many output channels turn the product around (output
// channels along the vectors, then a transpose): 1x1 and 3x3, strides,
// groups, batches, edge rows of the GEMM, every fused activation.
TEST(ConvOps, ChannelsAlongVectorsCpuMatchesReference) {
  EXPECT_TRUE(check_conv({1, 12, 7, 7}, {64, 12, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1})));
  EXPECT_TRUE(check_conv({2, 48, 5, 9}, {80, 48, 1, 1}, false, conv_attrs()));
  EXPECT_TRUE(check_conv({1, 40, 13, 11}, {72, 40, 3, 3}, true, conv_attrs({2, 2}, {1, 0, 1, 1})));
  EXPECT_TRUE(check_conv({2, 32, 6, 6}, {128, 16, 3, 3}, true, conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 2)));
  for (const auto& act : all_fused_activations()) {
    EXPECT_TRUE(check_conv({1, 24, 4, 3}, {96, 24, 1, 1}, true, conv_attrs(), &act));
  }
}

// Without prepare() (W not constant) the kernel packs the weights per run.
TEST(ConvOps, CpuKernelWithoutPreparedStateMatchesReference) {
  fb::OpT op = make_op(fb::OpType::Conv, conv_attrs({1, 1}, {1, 1, 1, 1}));
  Tensor x = random_tensor(DType::F32, {1, 3, 9, 11}, 5);
  Tensor w = random_tensor(DType::F32, {4, 3, 3, 3}, 6);
  Tensor b = random_tensor(DType::F32, {4}, 7);
  auto expected = run_op(op, {x, w, b}, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  Tensor y = Tensor::zeros(DType::F32, (*expected)[0].shape());
  ThreadPool pool(2);
  KernelContext ctx{op, {&x, &w, &b}, {&y}, &pool, nullptr};
  const CpuKernel* kernel = find_cpu_kernel(fb::OpType::Conv);
  ASSERT_NE(kernel, nullptr);
  ASSERT_TRUE(kernel->run(ctx).ok());
  expect_tensors_near(y, (*expected)[0], kRtol, kAtol);
}

// Expected values from numpy (direct definition, padded input windows):
//   x = ((np.arange(80) % 7) - 3).reshape(1, 4, 4, 5) * 0.5
//   w = ((np.arange(48) % 5) - 2).reshape(4, 2, 3, 2) * 0.25
//   b = [0.5, -1.0, 0.25, 2.0]; strides [2, 1], pads [1, 0, 2, 1],
//   dilations [1, 2], group 2; xp = np.pad(x, ((0,0),(0,0),(1,2),(0,1)))
//   y[0, m, i, j] = np.sum(xp[0, g*2:(g+1)*2, 2*i:2*i+3, j:j+3:2] * w[m]) + b[m], g = m // 2
TEST(ConvOps, ReferenceMatchesNumpy) {
  std::vector<float> xv(80), wv(48);
  for (int i = 0; i < 80; ++i) xv[i] = static_cast<float>((i % 7) - 3) * 0.5f;
  for (int i = 0; i < 48; ++i) wv[i] = static_cast<float>((i % 5) - 2) * 0.25f;
  Tensor x = Tensor::from_vector<float>({1, 4, 4, 5}, xv);
  Tensor w = Tensor::from_vector<float>({4, 2, 3, 2}, wv);
  Tensor b = Tensor::from_vector<float>({4}, {0.5f, -1.0f, 0.25f, 2.0f});
  auto y =
      run_op(make_op(fb::OpType::Conv, conv_attrs({2, 1}, {1, 0, 2, 1}, {1, 2}, 2)), {x, w, b}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  Tensor expected = Tensor::from_vector<float>(
      {1, 4, 3, 4},
      {0.875f,  1.0f,    -0.625f, 0.625f, 1.0f,   0.625f,  1.125f, 1.875f, 1.375f,  0.875f,  0.375f,  0.25f,
       -1.875f, -1.375f, -0.875f, -0.5f,  -0.75f, -2.375f, -0.5f,  -1.25f, -1.625f, -1.125f, -0.625f, -1.0f,
       0.375f,  -0.125f, -0.625f, 1.375f, 1.125f, 0.25f,   0.25f,  -0.25f, 1.375f,  -0.75f,  0.625f,  0.5f,
       0.875f,  2.5f,    2.375f,  0.0f,   0.625f, 2.25f,   3.0f,   2.25f,  1.25f,   2.125f,  2.125f,  2.125f});
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-6);
}

// ONNX SAME_UPPER puts the odd padding unit at the end, SAME_LOWER at the
// beginning: 13 with kernel 4, stride 2 needs 3 (out = 7, (7-1)*2+4-13).
TEST(ConvOps, AutoPadSplitsPaddingAsOnnx) {
  auto upper = resolve_conv(conv_attrs({2}, {}, {}, 1, fb::AutoPad::SameUpper), {1, 1, 13}, {1, 1, 4});
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(upper->out_size[2], 7);
  EXPECT_EQ(upper->pad_begin[2], 1);
  EXPECT_EQ(upper->pad_end[2], 2);
  auto lower = resolve_conv(conv_attrs({2}, {}, {}, 1, fb::AutoPad::SameLower), {1, 1, 13}, {1, 1, 4});
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(lower->pad_begin[2], 2);
  EXPECT_EQ(lower->pad_end[2], 1);
  auto valid = resolve_conv(conv_attrs({2}, {5, 5}, {}, 1, fb::AutoPad::Valid), {1, 1, 13}, {1, 1, 4});
  ASSERT_TRUE(valid.ok());
  EXPECT_EQ(valid->out_size[2], 5);
  EXPECT_EQ(valid->pad_begin[2], 0);
}

void expect_shape_error(const Shape& x, const Shape& w, const fb::ConvAttrsT& a, const std::string& words,
                        std::optional<Shape> bias = std::nullopt, DType x_dtype = DType::F32,
                        DType w_dtype = DType::F32) {
  Inputs inputs = {Tensor::zeros(x_dtype, x), Tensor::zeros(w_dtype, w)};
  if (bias) inputs.push_back(Tensor::zeros(DType::F32, *bias));
  auto result = run_op(make_op(fb::OpType::Conv, a), inputs, Impl::kReference);
  ASSERT_FALSE(result.ok()) << "X " << shape_to_string(x) << " W " << shape_to_string(w);
  EXPECT_NE(result.status().message().find(words), std::string::npos) << result.status().message();
}

TEST(ConvOps, ShapeFunctionRejectsBadModels) {
  expect_shape_error({1, 3}, {4, 3}, conv_attrs(), "rank 3 to 5");
  expect_shape_error({1, 3, 2, 2, 2, 2}, {4, 3, 1, 1, 1, 1}, conv_attrs(), "rank 3 to 5");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3}, conv_attrs(), "same rank");
  expect_shape_error({1, 3, 5, 5}, {4, 2, 3, 3}, conv_attrs(), "input channels per group");
  expect_shape_error({1, 3, 5, 5}, {4, 1, 3, 3}, conv_attrs({}, {}, {}, 2), "group 2");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({}, {}, {}, 0), "group 0");
  expect_shape_error({1, 4, 5, 5}, {3, 2, 3, 3}, conv_attrs({}, {}, {}, 2), "not a multiple of group");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs(), "bias B", Shape{3});
  fb::ConvAttrsT wrong_kernel = conv_attrs();
  wrong_kernel.kernel_shape = {3, 2};
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, wrong_kernel, "kernel_shape");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({1}), "strides");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({1, 0}), "strides");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({}, {}, {0, 1}), "dilations");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({}, {1, 1, 1}), "pads");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({}, {-1, 0, 0, 0}), "pads");
  expect_shape_error({1, 3, 2, 5}, {4, 3, 3, 3}, conv_attrs(), "smaller than the dilated kernel");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs({}, {}, {3, 3}), "smaller than the dilated kernel");
  expect_shape_error({1, 3, 0, 5}, {4, 3, 1, 1}, conv_attrs(), "invalid dimension");
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs(), "dtype", std::nullopt, DType::I32, DType::I32);
  expect_shape_error({1, 3, 5, 5}, {4, 3, 3, 3}, conv_attrs(), "must match", std::nullopt, DType::F32, DType::F16);
}

// A float dtype the shape function accepts but a kernel does not implement
// is an error, not a crash: f16 (sessions widen f16 weights before kernels
// see them) for both, f64 for the CPU kernel (the reference one runs f64,
// tests/ops/reference_f64_test.cpp).
TEST(ConvOps, KernelsRejectUnsupportedDtypes) {
  for (DType dtype : {DType::F16, DType::F64}) {
    Inputs inputs = {Tensor::zeros(dtype, {1, 2, 3, 3}), Tensor::zeros(dtype, {2, 2, 1, 1})};
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      if (dtype == DType::F64 && impl == Impl::kReference) continue;
      auto result = run_op(make_op(fb::OpType::Conv, conv_attrs()), inputs, impl);
      EXPECT_FALSE(result.ok()) << impl_name(impl) << " " << dtype_name(dtype);
    }
  }
}

}  // namespace
}  // namespace mote::test
