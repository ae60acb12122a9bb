#include <string>
#include <vector>

#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-4;

fb::ConvAttrsT conv_transpose_attrs(std::vector<int64_t> strides = {}, std::vector<int64_t> pads = {},
                                    std::vector<int64_t> dilations = {}, int64_t group = 1,
                                    std::vector<int64_t> output_padding = {},
                                    fb::AutoPad auto_pad = fb::AutoPad::NotSet,
                                    std::vector<int64_t> output_shape = {}) {
  fb::ConvAttrsT a;
  a.strides = std::move(strides);
  a.pads = std::move(pads);
  a.dilations = std::move(dilations);
  a.group = group;
  a.output_padding = std::move(output_padding);
  a.auto_pad = auto_pad;
  a.output_shape = std::move(output_shape);
  return a;
}

// W is [C_in, C_out / group, k...]. Returns false when the geometry is invalid.
bool check_conv_transpose(const Shape& x, const Shape& w, bool bias, const fb::ConvAttrsT& a,
                          const fb::FusedActivationT* act = nullptr, uint32_t seed = 1) {
  auto g = resolve_conv_transpose(a, x, w);
  if (!g.ok()) return false;
  fb::OpT op = make_op(fb::OpType::ConvTranspose, a);
  if (act) op = with_fused(std::move(op), *act);
  Inputs inputs = {random_tensor(DType::F32, x, seed), random_tensor(DType::F32, w, seed + 1)};
  if (bias) inputs.push_back(random_tensor(DType::F32, {g->out_channels}, seed + 2));
  SCOPED_TRACE("X " + shape_to_string(x) + " W " + shape_to_string(w) + (bias ? " with bias" : "") +
               (act ? " fused " + fused_name(*act) : ""));
  expect_cpu_matches_reference(op, inputs, kRtol, kAtol);
  return true;
}

TEST(ConvTransposeOps, CpuMatchesReference2d) {
  struct Variant {
    Shape kernel;
    fb::ConvAttrsT attrs;
    int64_t in_channels, out_channels;
  };
  const std::vector<Variant> variants = {
      {{3, 3}, conv_transpose_attrs(), 3, 4},
      {{3, 3}, conv_transpose_attrs({2, 2}, {1, 1, 1, 1}, {}, 1, {1, 1}), 3, 2},
      {{4, 4}, conv_transpose_attrs({2, 2}, {1, 1, 1, 1}), 4, 3},                // the usual 2x upsampler
      {{3, 2}, conv_transpose_attrs({3, 2}, {0, 1, 2, 0}, {2, 1}, 1, {2, 1}), 2, 3},  // asymmetric everything
      {{3, 3}, conv_transpose_attrs({2, 2}, {1, 1, 1, 1}, {}, 2), 4, 6},          // groups
      {{1, 1}, conv_transpose_attrs(), 5, 7},
      {{2, 2}, conv_transpose_attrs({2, 2}), 4, 4},
      {{3, 3}, conv_transpose_attrs({1, 1}, {}, {2, 2}, 3, {}), 3, 3},            // dilation, depthwise-like
  };
  int checked = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& var = variants[v];
    for (int64_t n : {1, 2}) {
      for (int64_t h : {1, 3, 13}) {
        for (int64_t w : odd_sizes()) {
          Shape x = {n, var.in_channels, h, w};
          Shape wt = {var.in_channels, var.out_channels / var.attrs.group, var.kernel[0], var.kernel[1]};
          checked += check_conv_transpose(x, wt, (h + w + v) % 2 == 1, var.attrs, nullptr,
                                          static_cast<uint32_t>(v * 100 + h + w));
        }
      }
    }
  }
  EXPECT_GT(checked, 170);
}

TEST(ConvTransposeOps, CpuMatchesReference1dAnd3d) {
  for (int64_t length : odd_sizes()) {
    EXPECT_TRUE(check_conv_transpose({2, 3, length}, {3, 4, 3}, true, conv_transpose_attrs({2}, {1, 0}, {}, 1, {1})));
    EXPECT_TRUE(check_conv_transpose({1, 4, length}, {4, 1, 5}, false, conv_transpose_attrs({3}, {}, {2}, 2)));
  }
  EXPECT_TRUE(check_conv_transpose({1, 4, 3, 4, 5}, {4, 3, 2, 3, 2}, true,
                                   conv_transpose_attrs({2, 1, 2}, {0, 1, 0, 1, 0, 1}, {1, 1, 2}, 2)));
}

TEST(ConvTransposeOps, AutoPadAndOutputShapeCpuMatchReference) {
  for (fb::AutoPad mode : {fb::AutoPad::NotSet, fb::AutoPad::SameUpper, fb::AutoPad::SameLower, fb::AutoPad::Valid}) {
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t k : {1, 2, 3, 4}) {
        SCOPED_TRACE(std::string("auto_pad ") + fb::EnumNameAutoPad(mode) + " stride " + std::to_string(stride) +
                     " kernel " + std::to_string(k));
        EXPECT_TRUE(check_conv_transpose({1, 3, 5, 6}, {3, 2, k, k}, true,
                                         conv_transpose_attrs({stride, stride}, {}, {}, 1, {}, mode)));
      }
    }
  }
  // output_shape, spatial only or whole; larger than the natural size when
  // the kernel is smaller than the stride (negative padding).
  EXPECT_TRUE(check_conv_transpose({1, 3, 5, 6}, {3, 2, 3, 3}, true,
                                   conv_transpose_attrs({2, 2}, {}, {}, 1, {}, fb::AutoPad::NotSet, {10, 12})));
  EXPECT_TRUE(check_conv_transpose({1, 3, 5, 6}, {3, 2, 3, 3}, false,
                                   conv_transpose_attrs({2, 2}, {}, {}, 1, {1, 1}, fb::AutoPad::SameUpper,
                                                        {1, 2, 9, 13})));
  EXPECT_TRUE(check_conv_transpose({1, 2, 4, 4}, {2, 2, 1, 1}, true,
                                   conv_transpose_attrs({2, 2}, {}, {}, 1, {}, fb::AutoPad::SameUpper)));
  EXPECT_TRUE(check_conv_transpose({1, 2, 4, 4}, {2, 2, 1, 1}, true,
                                   conv_transpose_attrs({3, 3}, {}, {}, 1, {}, fb::AutoPad::NotSet, {13, 12})));
}

TEST(ConvTransposeOps, FusedActivationsCpuMatchReference) {
  for (const auto& act : all_fused_activations()) {
    EXPECT_TRUE(check_conv_transpose({1, 3, 7, 9}, {3, 4, 4, 4}, true,
                                     conv_transpose_attrs({2, 2}, {1, 1, 1, 1}), &act));
    EXPECT_TRUE(check_conv_transpose({2, 4, 5, 5}, {4, 1, 3, 3}, false,
                                     conv_transpose_attrs({1, 1}, {1, 1, 1, 1}, {}, 2), &act));
  }
}

// Many taps and pixels: several column tiles, parallel (image, group) tasks
// and, with one image and group, the pooled GEMM and col2im.
TEST(ConvTransposeOps, LargeCpuMatchesReference) {
  EXPECT_TRUE(check_conv_transpose({1, 16, 40, 44}, {16, 32, 4, 4}, true, conv_transpose_attrs({2, 2}, {1, 1, 1, 1})));
  EXPECT_TRUE(check_conv_transpose({2, 8, 33, 21}, {8, 6, 3, 3}, false, conv_transpose_attrs({2, 2}, {}, {}, 2)));
}

// Expected values from numpy: scatter into the full output, then crop.
//   x = ((np.arange(18) % 7) - 3).reshape(1, 2, 3, 3) * 0.5
//   w = ((np.arange(36) % 5) - 2).reshape(2, 3, 3, 2) * 0.25
//   b = [0.5, -1.0, 0.25]; strides [2, 3], pads [1, 0, 0, 1], dilations
//   [1, 2], output_padding [1, 1]; full is [1, 3, 8, 10]:
//   full[0, :, 2*i:2*i+3, 3*j:3*j+3:2] += x[0, c, i, j] * w[c]
//   y = full[:, :, 1:8, 0:9] + b[None, :, None, None]
TEST(ConvTransposeOps, ReferenceMatchesNumpy) {
  std::vector<float> xv(18), wv(36);
  for (int i = 0; i < 18; ++i) xv[i] = static_cast<float>((i % 7) - 3) * 0.5f;
  for (int i = 0; i < 36; ++i) wv[i] = static_cast<float>((i % 5) - 2) * 0.25f;
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 3}, xv);
  Tensor w = Tensor::from_vector<float>({2, 3, 3, 2}, wv);
  Tensor b = Tensor::from_vector<float>({3}, {0.5f, -1.0f, 0.25f});
  auto y = run_op(make_op(fb::OpType::ConvTranspose, conv_transpose_attrs({2, 3}, {1, 0, 0, 1}, {1, 2}, 1, {1, 1})),
                  {x, w, b}, Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  Tensor expected = Tensor::from_vector<float>(
      {1, 3, 7, 9},
      {0.75f,  0.5f,   0.25f,  0.5f,   0.5f,   0.25f,  0.25f,  0.5f,   0.25f,  0.0f,   0.5f,   1.625f, 0.125f,
       0.5f,   1.625f, -0.625f, 0.5f,  -0.125f, 0.0f,  0.5f,   0.25f,  -0.25f, 0.5f,   0.25f,  1.25f,  0.5f,
       1.125f, -0.5f,  0.5f,   -0.125f, 1.375f, 0.5f,  0.75f,  1.5f,   0.5f,   -0.125f, 1.0f,  0.5f,   1.125f,
       0.75f,  0.5f,   0.25f,  0.5f,   0.5f,   0.25f,  1.25f,  0.5f,   -0.5f,  -0.25f, 0.5f,   1.125f, 0.0f,
       0.5f,   1.0f,   0.5f,   0.5f,   0.5f,   0.5f,   0.5f,   0.5f,   0.5f,   0.5f,   0.5f,   -1.25f, -1.0f,
       -1.75f, -1.25f, -1.0f,  -1.5f,  -1.25f, -1.0f,  -1.25f, 0.125f, -1.0f,  -1.375f, 0.125f, -1.0f, -1.5f,
       -1.625f, -1.0f, 0.125f, -1.25f, -1.0f,  -1.0f,  -1.25f, -1.0f,  -0.75f, -0.375f, -1.0f, -0.5f,  -1.625f,
       -1.0f,  0.0f,   -0.75f, -1.0f,  -0.125f, -1.625f, -1.0f, -2.0f, -0.375f, -1.0f, -0.25f, -1.25f, -1.0f,
       -1.75f, -1.25f, -1.0f,  -1.5f,  -2.0f,  -1.0f,  -1.875f, -0.375f, -1.0f, -0.875f, -0.5f, -1.0f, -0.75f,
       -1.0f,  -1.0f,  -1.0f,  -1.0f,  -1.0f,  -1.0f,  -1.0f,  -1.0f,  -1.0f,  -0.5f,  0.25f,  0.875f, -0.25f,
       0.25f,  0.75f,  0.0f,   0.25f,  0.625f, -0.125f, 0.25f, 0.25f,  -0.25f, 0.25f,  0.0f,   1.375f, 0.25f,
       0.625f, 0.25f,  0.25f,  0.5f,   0.5f,   0.25f,  0.375f, 0.75f,  0.25f,  -0.625f, 1.25f, 0.25f,  0.375f,
       1.125f, 0.25f,  -0.75f, -0.75f, 0.25f,  0.75f,  1.0f,   0.25f,  -0.75f, -0.5f,  0.25f,  0.875f, -0.25f,
       0.25f,  0.75f,  -0.625f, 0.25f, 0.75f,  0.375f, 0.25f,  0.5f,   0.5f,   0.25f,  0.25f,  0.25f,  0.25f,
       0.25f,  0.25f,  0.25f,  0.25f,  0.25f,  0.25f,  0.25f});
  expect_tensors_near((*y)[0], expected, 1e-6, 1e-6);
}

// Expected values from numpy, 1-D, stride 2, kernel 3, 3 inputs: the full
// output has 7 values, SAME wants 6, so one is cropped: at the end for
// SAME_UPPER, at the beginning for SAME_LOWER (the ONNX spec's formula).
//   x = [1, 2, 3]; w = [1, 10, 100]; full = [1, 10, 102, 20, 203, 30, 300]
//   SAME_UPPER: full[0:6]; SAME_LOWER: full[1:7]
TEST(ConvTransposeOps, SamePaddingCropsAsOnnx) {
  Tensor x = Tensor::from_vector<float>({1, 1, 3}, {1, 2, 3});
  Tensor w = Tensor::from_vector<float>({1, 1, 3}, {1, 10, 100});
  auto upper = run_op(make_op(fb::OpType::ConvTranspose,
                              conv_transpose_attrs({2}, {}, {}, 1, {}, fb::AutoPad::SameUpper)),
                      {x, w}, Impl::kReference);
  ASSERT_TRUE(upper.ok()) << upper.status().to_string();
  expect_tensors_near((*upper)[0], Tensor::from_vector<float>({1, 1, 6}, {1, 10, 102, 20, 203, 30}), 0, 0);
  auto lower = run_op(make_op(fb::OpType::ConvTranspose,
                              conv_transpose_attrs({2}, {}, {}, 1, {}, fb::AutoPad::SameLower)),
                      {x, w}, Impl::kReference);
  ASSERT_TRUE(lower.ok()) << lower.status().to_string();
  expect_tensors_near((*lower)[0], Tensor::from_vector<float>({1, 1, 6}, {10, 102, 20, 203, 30, 300}), 0, 0);
}

void expect_shape_error(const Shape& x, const Shape& w, const fb::ConvAttrsT& a, const std::string& words,
                        std::optional<Shape> bias = std::nullopt) {
  Inputs inputs = {Tensor::zeros(DType::F32, x), Tensor::zeros(DType::F32, w)};
  if (bias) inputs.push_back(Tensor::zeros(DType::F32, *bias));
  auto result = run_op(make_op(fb::OpType::ConvTranspose, a), inputs, Impl::kReference);
  ASSERT_FALSE(result.ok()) << "X " << shape_to_string(x) << " W " << shape_to_string(w);
  EXPECT_NE(result.status().message().find(words), std::string::npos) << result.status().message();
}

TEST(ConvTransposeOps, ShapeFunctionRejectsBadModels) {
  expect_shape_error({1, 3}, {3, 4}, conv_transpose_attrs(), "rank 3 to 5");
  expect_shape_error({1, 3, 5, 5}, {4, 2, 3, 3}, conv_transpose_attrs(), "as many rows as X has channels");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3}, conv_transpose_attrs({}, {}, {}, 2), "group 2");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3}, conv_transpose_attrs(), "bias B", Shape{3});
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3}, conv_transpose_attrs({2, 2}, {}, {}, 1, {2, 0}), "output_padding");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3}, conv_transpose_attrs({}, {}, {}, 1, {0}), "output_padding");
  expect_shape_error({1, 3, 1, 1}, {3, 2, 3, 3}, conv_transpose_attrs({}, {2, 2, 2, 2}), "remove the whole output");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3},
                     conv_transpose_attrs({}, {}, {}, 1, {}, fb::AutoPad::NotSet, {7}), "output_shape");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3},
                     conv_transpose_attrs({}, {}, {}, 1, {}, fb::AutoPad::NotSet, {7, 0}), "output_shape");
  expect_shape_error({1, 3, 5, 5}, {3, 2, 3, 3}, conv_transpose_attrs({0, 1}), "strides");
}

}  // namespace
}  // namespace mote::test
