#include "tests/ops/data_movement_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"  // bytes_off

namespace mote::test {
namespace {

fb::OpT resize_op(fb::ResizeMode mode, fb::CoordinateTransform transform,
                  fb::NearestMode nearest = fb::NearestMode::RoundPreferFloor) {
  fb::ResizeAttrsT a;
  a.mode = mode;
  a.coordinate_transformation_mode = transform;
  a.nearest_mode = nearest;
  return make_op(fb::OpType::Resize, a);
}

Tensor f32s(Shape shape, const std::vector<float>& values) { return Tensor::from_vector<float>(std::move(shape), values); }
Tensor scales(const std::vector<float>& values) { return f32s({static_cast<int64_t>(values.size())}, values); }

const fb::CoordinateTransform kTransforms[] = {
    fb::CoordinateTransform::HalfPixel,        fb::CoordinateTransform::Asymmetric,
    fb::CoordinateTransform::PytorchHalfPixel, fb::CoordinateTransform::AlignCorners,
    fb::CoordinateTransform::HalfPixelSymmetric,
};
const fb::NearestMode kNearestModes[] = {fb::NearestMode::RoundPreferFloor, fb::NearestMode::RoundPreferCeil,
                                         fb::NearestMode::Floor, fb::NearestMode::Ceil};

// Linear: the CPU interpolates axis by axis in float, the reference sums
// corners in double.
void expect_linear_matches(const fb::OpT& op, const Inputs& inputs) { expect_cpu_matches_reference(op, inputs, 1e-5, 1e-5); }

TEST(ResizeOps, LinearCpuMatchesReference) {
  uint32_t seed = 1;
  for (fb::CoordinateTransform transform : kTransforms) {
    const fb::OpT op = resize_op(fb::ResizeMode::Linear, transform);
    for (int64_t n : odd_sizes()) {
      Tensor x = random_tensor(DType::F32, {1, 2, n, n + 4}, seed++);
      expect_linear_matches(op, {x, std::nullopt, scales({1, 1, 2, 2})});
      expect_linear_matches(op, {x, std::nullopt, scales({1, 1, 0.6f, 1.7f})});
      expect_linear_matches(op, {x, std::nullopt, std::nullopt, i64s({1, 2, 2 * n + 1, 3})});
      expect_linear_matches(op, {x, std::nullopt, std::nullopt, i64s({1, 2, 1, 1})});
      expect_linear_matches(op, {x, std::nullopt, scales({2, 1.5f, 1, 1})});  // outer axes only
      expect_linear_matches(op, {x, f32s({0}, {}), scales({1, 1, 1, 1}), f32s({0}, {})});  // no change
      Tensor y = random_tensor(DType::F32, {3, n, 5}, seed++);  // every axis resized
      expect_linear_matches(op, {y, std::nullopt, std::nullopt, i64s({4, n + 2, 2})});
      expect_linear_matches(op, {random_tensor(DType::F32, {n}, seed++), std::nullopt, scales({3.5f})});
    }
  }
  // Bilinear upsampling of a feature map, large enough for both threads.
  expect_linear_matches(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::HalfPixel),
                        {random_tensor(DType::F32, {1, 16, 40, 43}, 9), std::nullopt, scales({1, 1, 2, 2})});
}

TEST(ResizeOps, NearestCpuMatchesReference) {
  uint32_t seed = 100;
  for (fb::CoordinateTransform transform : kTransforms) {
    for (fb::NearestMode rounding : kNearestModes) {
      const fb::OpT op = resize_op(fb::ResizeMode::Nearest, transform, rounding);
      for (int64_t n : odd_sizes()) {
        Tensor x = distinct_tensor(DType::F32, {1, 2, n, n + 4}, seed++);
        expect_cpu_matches_reference_exactly(op, {x, std::nullopt, scales({1, 1, 2, 2})});
        expect_cpu_matches_reference_exactly(op, {x, std::nullopt, scales({1, 1, 0.6f, 1.7f})});
        expect_cpu_matches_reference_exactly(op, {x, std::nullopt, std::nullopt, i64s({2, 1, 2 * n + 1, 3})});
      }
    }
  }
  const fb::OpT op = resize_op(fb::ResizeMode::Nearest, fb::CoordinateTransform::Asymmetric);
  for (DType dtype : copy_dtypes()) {
    expect_cpu_matches_reference_exactly(op, {distinct_tensor(dtype, {2, 3, 5, 7}, seed++), std::nullopt, scales({1, 1, 3, 0.5f})});
  }
  expect_cpu_matches_reference_exactly(op, {distinct_tensor(DType::F32, {1, 16, 40, 43}, 9), std::nullopt, scales({1, 1, 2, 2})});
}

// Linear reference against np.interp applied along each axis in turn, with
// the coordinates of each transform (np.interp clamps outside the input as
// ONNX does); the same values as the ONNX backend tests where one exists.
TEST(ResizeOps, LinearReferenceMatchesNumpy) {
  // c = (np.arange(4) + 0.5) / 2 - 0.5; interp(interp(x, axis 0, c), axis 1, c) for x = [[1, 2], [3, 4]]
  // (test_resize_upsample_scales_linear)
  auto up = run_reference(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::HalfPixel),
                          {f32s({1, 1, 2, 2}, {1, 2, 3, 4}), std::nullopt, scales({1, 1, 2, 2})});
  ASSERT_EQ(up.size(), 1u);
  expect_tensors_near(up[0],
                      f32s({1, 1, 4, 4}, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3,
                                          3.25f, 3.75f, 4}),
                      1e-6, 1e-6);
  // align_corners with scale 0.6 on [[1..4], [5..8]]: c = np.arange(out) * (in - 1) / (in * 0.6 - 1)
  // (test_resize_downsample_scales_linear_align_corners)
  auto corners = run_reference(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::AlignCorners),
                               {f32s({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), std::nullopt, scales({1, 1, 0.6f, 0.6f})});
  ASSERT_EQ(corners.size(), 1u);
  expect_tensors_near(corners[0], f32s({1, 1, 1, 2}, {1, 3.142857f}), 1e-6, 1e-6);
  // asymmetric, 3 -> 5: np.interp(np.arange(5) / (5 / 3), np.arange(3), [0, 10, 40])
  auto asymmetric = run_reference(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::Asymmetric),
                                  {f32s({3}, {0, 10, 40}), std::nullopt, std::nullopt, i64s({5})});
  ASSERT_EQ(asymmetric.size(), 1u);
  expect_tensors_near(asymmetric[0], f32s({5}, {0, 6, 16, 34, 40}), 1e-6, 1e-6);
  // pytorch_half_pixel, 4 -> 3: np.interp((np.arange(3) + 0.5) / 0.75 - 0.5, np.arange(4), [1, 2, 3, 4])
  auto pytorch = run_reference(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::PytorchHalfPixel),
                               {f32s({4}, {1, 2, 3, 4}), std::nullopt, std::nullopt, i64s({3})});
  ASSERT_EQ(pytorch.size(), 1u);
  expect_tensors_near(pytorch[0], f32s({3}, {1.16666667f, 2.5f, 3.83333333f}), 1e-6, 1e-6);
  // half_pixel_symmetric, scale 0.6 on 4 (2 outputs): s = np.float32(0.6); adj = 2 / (4 * s);
  // c = 2 * (1 - adj) + (np.arange(2) + 0.5) / s - 0.5 (test_resize_downsample_scales_linear_half_pixel_symmetric)
  auto symmetric = run_reference(resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::HalfPixelSymmetric),
                                 {f32s({4}, {1, 2, 3, 4}), std::nullopt, scales({0.6f})});
  ASSERT_EQ(symmetric.size(), 1u);
  expect_tensors_near(symmetric[0], f32s({2}, {1.6666667f, 3.3333333f}), 1e-6, 1e-6);
}

// numpy, half_pixel 4 -> 7: c = (np.arange(7) + 0.5) / (7 / 4) - 0.5; f = np.floor(c); r = c - f;
// x[np.clip(index, 0, 3)] with index = np.where(r > 0.5, f + 1, f) (round_prefer_floor),
// np.where(r >= 0.5, f + 1, f) (round_prefer_ceil), f (floor), np.where(r > 0, f + 1, f) (ceil)
TEST(ResizeOps, NearestReferenceMatchesNumpy) {
  const std::pair<fb::NearestMode, std::vector<int32_t>> cases[] = {
      {fb::NearestMode::RoundPreferFloor, {10, 10, 20, 20, 30, 40, 40}},
      {fb::NearestMode::RoundPreferCeil, {10, 10, 20, 30, 30, 40, 40}},
      {fb::NearestMode::Floor, {10, 10, 10, 20, 30, 30, 40}},
      {fb::NearestMode::Ceil, {10, 20, 20, 30, 40, 40, 40}},
  };
  for (const auto& [rounding, expected] : cases) {
    auto y = run_reference(resize_op(fb::ResizeMode::Nearest, fb::CoordinateTransform::HalfPixel, rounding),
                           {Tensor::from_vector<int32_t>({4}, {10, 20, 30, 40}), std::nullopt, std::nullopt, i64s({7})});
    ASSERT_EQ(y.size(), 1u);
    expect_tensors_near(y[0], Tensor::from_vector<int32_t>({7}, expected), 0, 0, fb::EnumNameNearestMode(rounding));
  }
}

TEST(ResizeOps, ShapeErrorsAreReported) {
  Tensor x = Tensor::zeros(DType::F32, {1, 1, 2, 2});
  const fb::OpT linear = resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::HalfPixel);
  expect_rejected(linear, {x, std::nullopt, scales({1, 1, 2, 2}), i64s({1, 1, 4, 4})}, "exactly one");
  expect_rejected(linear, {x}, "exactly one");
  expect_rejected(linear, {x, std::nullopt, scales({2, 2})}, "'scales' has 2 entries");
  expect_rejected(linear, {x, std::nullopt, scales({1, 1, 0, 2})}, "must be positive");
  expect_rejected(linear, {x, std::nullopt, scales({1, 1, -2, 2})}, "must be positive");
  expect_rejected(linear, {x, std::nullopt, i64s({1, 1, 2, 2})}, "'scales' must be f32");
  expect_rejected(linear, {x, std::nullopt, std::nullopt, i64s({1, 1, -4, 4})}, "negative");
  expect_rejected(linear, {Tensor::zeros(DType::F32, {0, 2}), std::nullopt, std::nullopt, i64s({3, 2})}, "empty");
  expect_rejected(linear, {Tensor::from_vector<float>({}, {1}), std::nullopt, scales({})}, "scalar");
}

TEST(ResizeOps, InterpolatingIntegersSaysUnsupported) {
  // Cubic and tf_crop_and_resize run (checked against ONNX's outputs by the
  // conformance suite); interpolating integers does not, but for linear
  // on 8-bit codes.
  const fb::OpT cubic = resize_op(fb::ResizeMode::Cubic, fb::CoordinateTransform::HalfPixel);
  const fb::OpT linear = resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::HalfPixel);
  const Tensor ints = Tensor::zeros(DType::I32, {1, 1, 2, 2});
  const Tensor codes = Tensor::zeros(DType::U8, {1, 1, 2, 2});
  const std::pair<fb::OpT, Inputs> cases[] = {
      {cubic, {ints, std::nullopt, scales({1, 1, 2, 2})}},
      {linear, {ints, std::nullopt, scales({1, 1, 2, 2})}},
      {cubic, {codes, std::nullopt, scales({1, 1, 2, 2})}},
  };
  for (const auto& [op, inputs] : cases) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto result = run_op(op, inputs, impl);
      ASSERT_FALSE(result.ok());
      EXPECT_EQ(result.status().code(), StatusCode::kUnsupported) << result.status().to_string();
      EXPECT_NE(result.status().message().find("Resize"), std::string::npos) << result.status().to_string();
    }
  }
}

// Linear on 8-bit codes (resize_runs_on_codes): worked by hand, asymmetric
// coordinates and a scale of 2 along W put outputs 1 and 3 between inputs
// (weights 1/2): u8 {10, 15} -> {10, 12.5, 15, 15} rounds half to even to
// {10, 12, 15, 15}; i8 {-3, 2} -> {-3, -0.5, 2, 2} -> {-3, 0, 2, 2}; u8
// {250, 255, 255} at 4/3 (coordinates 0, 0.75, 1.5, 2.25) -> {250, 253.75,
// 255, 255} -> {250, 254, 255, 255}.
TEST(ResizeOps, LinearOnCodesReferenceMatchesWorkedExample) {
  const fb::OpT op = resize_op(fb::ResizeMode::Linear, fb::CoordinateTransform::Asymmetric);
  const std::pair<Inputs, Tensor> cases[] = {
      {{Tensor::from_vector<uint8_t>({1, 1, 1, 2}, {10, 15}), std::nullopt, scales({1, 1, 1, 2})},
       Tensor::from_vector<uint8_t>({1, 1, 1, 4}, {10, 12, 15, 15})},
      {{Tensor::from_vector<int8_t>({1, 1, 1, 2}, {-3, 2}), std::nullopt, scales({1, 1, 1, 2})},
       Tensor::from_vector<int8_t>({1, 1, 1, 4}, {-3, 0, 2, 2})},
      {{Tensor::from_vector<uint8_t>({1, 3}, {250, 255, 255}), std::nullopt, std::nullopt, i64s({1, 4})},
       Tensor::from_vector<uint8_t>({1, 4}, {250, 254, 255, 255})},
  };
  for (const auto& [inputs, want] : cases) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(op, inputs, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      expect_tensors_near((*y)[0], want, 0.0, 0.0, impl_name(impl));
    }
  }
}

// The CPU's float passes against the reference's double sums: one code
// apart at most, at near-ties, and those few (2 + n / 40: a rounding or
// index error would be off at a third or more). Near-ties are not rare
// here: with these scales' rational weights a weighted sum of integer codes
// can land exactly on a half, which the double and the float arithmetic
// miss by a hair to either side (up to 3 of 324 outputs one code apart on
// x86, 5 on arm64).
TEST(ResizeOps, LinearOnCodesCpuMatchesReference) {
  uint32_t seed = 1;
  for (fb::CoordinateTransform transform : kTransforms) {
    const fb::OpT op = resize_op(fb::ResizeMode::Linear, transform);
    for (DType t : {DType::U8, DType::I8}) {
      const Tensor x = random_tensor(t, {1, 3, 9, 13}, seed++, t == DType::I8 ? -128 : 0, t == DType::I8 ? 128 : 256);
      for (const Inputs& inputs :
           {Inputs{x, std::nullopt, scales({1, 1, 2, 2})}, Inputs{x, std::nullopt, scales({1, 1, 0.6f, 1.7f})},
            Inputs{x, std::nullopt, std::nullopt, i64s({1, 3, 4, 27})}}) {
        auto expected = run_op(op, inputs, Impl::kReference);
        ASSERT_TRUE(expected.ok()) << expected.status().to_string();
        auto actual = run_op(op, inputs, Impl::kCpu);
        ASSERT_TRUE(actual.ok()) << actual.status().to_string();
        const Tensor& want = (*expected)[0];
        expect_tensors_near((*actual)[0], want, 0.0, 1.0, "cpu");
        EXPECT_LE(bytes_off((*actual)[0], want), 2 + want.numel() / 40)
            << fb::EnumNameCoordinateTransform(transform) << " " << dtype_name(t) << " "
            << shape_to_string(want.shape());
      }
    }
  }
}

}  // namespace
}  // namespace mote::test
