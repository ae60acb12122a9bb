// Data-movement ops on Vulkan against the reference kernels: every element
// size (copy_dtypes), odd sizes, f32 and f16 storage. Moves are exact.
#include "tests/ops/data_movement_test_util.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

const Tolerance kExact{0, 0, 0, 0};

void expect_exact(const fb::OpT& op, const Inputs& inputs, uint32_t constant_mask = kValueInputs) {
  expect_vulkan_matches_reference(op, inputs, kExact, constant_mask);
}

fb::OpT axis_op(OpType type, int64_t axis) {
  fb::AxisAttrsT a;
  a.axis = axis;
  return make_op(type, a);
}

TEST(ReshapeVk, EveryDtypeCopies) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (DType dtype : copy_dtypes()) {
    for (int64_t n : odd_sizes()) {
      Tensor x = distinct_tensor(dtype, {n, 3, 1}, seed++);
      expect_exact(make_op(OpType::Reshape), {x, i64s({3, -1})});
      expect_exact(make_op(OpType::Identity), {x});
      expect_exact(axis_op(OpType::Flatten, 2), {x});
      expect_exact(make_op(OpType::Squeeze), {x, i64s({2})});
      expect_exact(make_op(OpType::Unsqueeze), {x, i64s({0, 4})});
    }
  }
}

TEST(TransposeVk, PermutationsOfEveryDtype) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 10;
  const std::vector<std::vector<int64_t>> perms = {{}, {0, 2, 1, 3}, {3, 1, 0, 2}, {1, 2, 3, 0}};
  for (DType dtype : copy_dtypes()) {
    for (int64_t n : odd_sizes()) {
      Tensor x = distinct_tensor(dtype, {2, n, 3, 5}, seed++);
      for (const auto& perm : perms) {
        fb::TransposeAttrsT a;
        a.perm = perm;
        expect_exact(make_op(OpType::Transpose, a), {x});
      }
    }
  }
  fb::TransposeAttrsT six;
  six.perm = {5, 0, 4, 1, 3, 2};
  expect_exact(make_op(OpType::Transpose, six), {distinct_tensor(DType::F32, {2, 3, 1, 4, 5, 3}, 3)});
}

fb::OpT depth_space_op(OpType type, int64_t b, fb::DepthToSpaceMode mode = fb::DepthToSpaceMode::DCR) {
  fb::DepthSpaceAttrsT a;
  a.blocksize = b;
  a.mode = mode;
  return make_op(type, a);
}

TEST(DepthSpaceVk, BothModesAndInverse) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 20;
  for (DType dtype : {DType::F32, DType::I64, DType::Bool}) {
    for (int64_t n : {1, 3, 13}) {
      for (int64_t b : {1, 2, 3}) {
        for (auto mode : {fb::DepthToSpaceMode::DCR, fb::DepthToSpaceMode::CRD}) {
          expect_exact(depth_space_op(OpType::DepthToSpace, b, mode), {distinct_tensor(dtype, {2, 2 * b * b, n, 5}, seed++)});
        }
        expect_exact(depth_space_op(OpType::SpaceToDepth, b), {distinct_tensor(dtype, {2, 3, n * b, 4 * b}, seed++)});
      }
    }
  }
}

fb::OpT split_op(int64_t axis, int64_t num_outputs, size_t outputs) {
  fb::SplitAttrsT a;
  a.axis = axis;
  a.num_outputs = num_outputs;
  fb::OpT op = make_op(OpType::Split, a);
  op.outputs.resize(outputs);
  return op;
}

TEST(ConcatSplitVk, EveryAxisAndDtype) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 30;
  for (DType dtype : copy_dtypes()) {
    for (int64_t n : odd_sizes()) {
      Tensor a = distinct_tensor(dtype, {2, n, 4}, seed++);
      Tensor b = distinct_tensor(dtype, {2, 3, 4}, seed++);
      Tensor c = distinct_tensor(dtype, {2, 1, 4}, seed++);
      // Axis 1 rows are multiples of 4 elements, so packed dtypes stay on the GPU.
      expect_exact(axis_op(OpType::Concat, 1), {a, b, c});
      // A constant input (not for f16: the session widens f16 constants to f32).
      if (dtype != DType::F16) expect_exact(axis_op(OpType::Concat, 1), {a, b, c}, 0b010);
      expect_exact(axis_op(OpType::Concat, -3), {a, a});
      Tensor x = distinct_tensor(dtype, {3, n + 4, 4}, seed++);
      expect_exact(split_op(1, 0, 3), {x, i64s({1, n, 3})});
      expect_exact(split_op(1, 3, 3), {x});
      expect_exact(split_op(-1, 2, 0), {x});
    }
  }
  // 32-bit and wider elements concatenate along any axis.
  for (DType dtype : {DType::F32, DType::I32, DType::I64}) {
    for (int64_t n : odd_sizes()) {
      expect_exact(axis_op(OpType::Concat, 2),
                   {distinct_tensor(dtype, {3, 2, n}, seed++), distinct_tensor(dtype, {3, 2, 5}, seed++)});
    }
  }
  expect_exact(axis_op(OpType::Concat, 0), {distinct_tensor(DType::F32, {5}, 9)});
}

TEST(SliceGatherVk, SliceStepsAxesAndGather) {
  MOTE_REQUIRE_VULKAN();
  const int64_t kBig = INT64_MAX, kSmall = INT64_MIN;
  const fb::OpT slice = make_op(OpType::Slice);
  uint32_t seed = 40;
  for (DType dtype : copy_dtypes()) {
    for (int64_t n : odd_sizes()) {
      Tensor x = distinct_tensor(dtype, {4, n, 6}, seed++);
      expect_exact(slice, {x, i64s({1, 0}), i64s({3, n}), std::nullopt, std::nullopt});
      expect_exact(slice, {x, i64s({-1}), i64s({kSmall}), i64s({1}), i64s({-1})});
      expect_exact(slice, {x, i64s({n / 2, 5}), i64s({kBig, -7}), i64s({-2, 2}), i64s({2, -2})});
      expect_exact(slice, {x, i64s({3, 0}), i64s({1, 6}), i64s({0, 2}), i64s({kSmall, kBig})});
      expect_exact(slice, {x, i32s({-100}), i32s({100}), i32s({-1}), i32s({4})});
      Tensor y = distinct_tensor(dtype, {3, n, 4}, seed++);
      expect_exact(axis_op(OpType::Gather, 0), {y, i64s({2, -3, 1, 1})});
      expect_exact(axis_op(OpType::Gather, 1), {y, Tensor::from_vector<int64_t>({2, 2}, {0, n - 1, -n, 0})});
      expect_exact(axis_op(OpType::Gather, -1), {y, Tensor::from_vector<int32_t>({}, {-1})});
      expect_exact(axis_op(OpType::Gather, 1), {y, i32s({0, -1})}, 0b10);  // constant indices
    }
  }
  Tensor tokens = Tensor::zeros(DType::I64, {8, 64});
  for (int64_t i = 0; i < tokens.numel(); ++i) tokens.data<int64_t>()[i] = (i * 37) % 1000;
  expect_exact(axis_op(OpType::Gather, 0), {distinct_tensor(DType::F32, {1000, 64}, 7), tokens});
}

TEST(ExpandTileVk, BroadcastAndRepeat) {
  MOTE_REQUIRE_VULKAN();
  uint32_t seed = 50;
  for (DType dtype : copy_dtypes()) {
    for (int64_t n : odd_sizes()) {
      Tensor x = distinct_tensor(dtype, {n, 1, 3}, seed++);
      expect_exact(make_op(OpType::Expand), {x, i64s({2, n, 5, 3})});
      expect_exact(make_op(OpType::Expand), {x, i64s({1, 1})});
      expect_exact(make_op(OpType::Tile), {x, i64s({2, 3, 1})});
      expect_exact(make_op(OpType::Tile), {x, i64s({1, 1, 3})});
    }
  }
}

fb::OpT pad_op(fb::PadMode mode) {
  fb::PadAttrsT a;
  a.mode = mode;
  return make_op(OpType::Pad, a);
}

TEST(PadVk, EveryModeCropsAndConstants) {
  MOTE_REQUIRE_VULKAN();
  const fb::PadMode modes[] = {fb::PadMode::Constant, fb::PadMode::Reflect, fb::PadMode::Edge, fb::PadMode::Wrap};
  const uint32_t kPadsAndValue = 0b1110;
  uint32_t seed = 60;
  for (int64_t n : odd_sizes()) {
    for (fb::PadMode mode : modes) {
      Tensor x = distinct_tensor(DType::F32, {3, n, 4}, seed++);
      expect_exact(pad_op(mode), {x, i64s({1, 2, 0, 0, 3, 5})});
      expect_exact(pad_op(mode), {x, i64s({0, 0, 0, 0, 0, 0})});
      expect_exact(pad_op(mode), {x, i64s({2, 7}), std::nullopt, i64s({-1})});  // wider than the axis
      expect_exact(pad_op(mode), {x, i64s({-1, 2, 1, -2}), std::nullopt, i64s({0, 2})});  // crops
      expect_exact(pad_op(mode), {x, i32s({4, 0, 1, 9}), std::nullopt, i32s({-3, 1})});
    }
  }
  for (DType dtype : copy_dtypes()) {
    Tensor x = distinct_tensor(dtype, {5, 7}, seed++);
    Tensor value = distinct_tensor(dtype, {}, seed++);
    for (fb::PadMode mode : modes) expect_exact(pad_op(mode), {x, i64s({2, 1, 3, 4})});
    if (dtype == DType::F16) continue;  // f16 constants are widened to f32, unlike the data
    expect_exact(pad_op(fb::PadMode::Constant), {x, i64s({2, 1, 3, 4}), value}, kPadsAndValue);
    expect_exact(pad_op(fb::PadMode::Constant), {x, i64s({2, 1, -1, 4}), value}, kPadsAndValue);
  }
}

fb::OpT resize_op(fb::ResizeMode mode, fb::CoordinateTransform transform,
                  fb::NearestMode nearest = fb::NearestMode::RoundPreferFloor) {
  fb::ResizeAttrsT a;
  a.mode = mode;
  a.coordinate_transformation_mode = transform;
  a.nearest_mode = nearest;
  return make_op(OpType::Resize, a);
}

Tensor scales(const std::vector<float>& values) {
  return Tensor::from_vector<float>({static_cast<int64_t>(values.size())}, values);
}

TEST(ResizeVk, NearestAndLinearOverTransforms) {
  MOTE_REQUIRE_VULKAN();
  const fb::CoordinateTransform transforms[] = {
      fb::CoordinateTransform::HalfPixel,        fb::CoordinateTransform::Asymmetric,
      fb::CoordinateTransform::PytorchHalfPixel, fb::CoordinateTransform::AlignCorners,
      fb::CoordinateTransform::HalfPixelSymmetric,
  };
  const fb::NearestMode nearest_modes[] = {fb::NearestMode::RoundPreferFloor, fb::NearestMode::RoundPreferCeil,
                                           fb::NearestMode::Floor, fb::NearestMode::Ceil};
  uint32_t seed = 70;
  for (int64_t n : {1, 3, 13}) {
    Tensor x = distinct_tensor(DType::F32, {2, 3, n, 5}, seed++);
    for (auto transform : transforms) {
      for (auto nearest : nearest_modes) {
        const fb::OpT op = resize_op(fb::ResizeMode::Nearest, transform, nearest);
        expect_exact(op, {x, std::nullopt, scales({1, 1, 2, 2})});
        expect_exact(op, {x, std::nullopt, scales({1, 1, 0.6f, 1.7f})});
      }
      const fb::OpT linear = resize_op(fb::ResizeMode::Linear, transform);
      expect_vulkan_matches_reference(linear, {x, std::nullopt, scales({1, 1, 2, 2})});
      expect_vulkan_matches_reference(linear, {x, std::nullopt, scales({1, 1, 0.6f, 1.7f})});
      expect_vulkan_matches_reference(linear, {x, std::nullopt, std::nullopt, i64s({2, 1, 2 * n + 1, 3})});
      expect_vulkan_matches_reference(linear, {x, std::nullopt, scales({1.5f, 1, 1, 1})});
    }
  }
}

}  // namespace
}  // namespace mote::test
