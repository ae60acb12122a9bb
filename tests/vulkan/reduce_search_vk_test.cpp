// Reductions, Softmax, ArgMax/ArgMin, TopK and CumSum on Vulkan against the
// reference kernels: odd sizes, axes that force each launch shape (a
// workgroup per row of either width, an invocation per row), attribute
// variants, f32 and f16 storage.
#include <cmath>
#include <limits>

#include "runtime/vulkan/device.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

// f16 storage rounds every result; sums of many f16 values drift further.
const Tolerance kReduceTol{1e-4, 1e-4, 1e-2, 1e-2};

Tensor axes_tensor(const std::vector<int64_t>& axes) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes);
}

fb::OpT reduce_op(OpType type, bool keepdims = true, bool noop_with_empty_axes = false) {
  fb::ReduceAttrsT a;
  a.keepdims = keepdims;
  a.noop_with_empty_axes = noop_with_empty_axes;
  return make_op(type, a);
}

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axes;  // empty: all axes
};

class ReduceVk : public ::testing::TestWithParam<OpType> {};

TEST_P(ReduceVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  OpType type = GetParam();
  const ReduceCase cases[] = {
      {{1}, {0}},
      {{3, 13}, {1}},                 // short rows: an invocation each on CPU-type devices
      {{40, 169}, {1}},               // rows up to 256 long: the same
      {{5, 300}, {1}},                // longer rows: a small workgroup each
      {{13, 127}, {0}},               // innermost kept, few outputs: a workgroup each, strided
      {{3, 3000}, {-1}},              // long rows: wide workgroups
      {{2000, 3}, {0}},               // long strided reduction of few outputs
      {{3, 1500}, {0}},               // many outputs: one invocation each
      {{2, 3, 4, 5}, {1, 3}},         // alternating axes
      {{2, 3, 4, 5}, {}},             // everything
      {{2, 1, 13, 1, 3}, {0, 2, 4}},  // unit axes dropped before merging
      {{2, 3, 2, 3, 2, 3}, {1, 3, 5}},
      {{2, 70000}, {1}},  // longer than one invocation could loop
  };
  uint32_t seed = 1;
  for (const ReduceCase& c : cases) {
    // Products stay finite near 1.
    bool prod = type == OpType::ReduceProd;
    Tensor x = random_tensor(DType::F32, c.shape, seed++, prod ? 0.99 : -2.0, prod ? 1.01 : 2.0);
    for (bool keepdims : {true, false}) {
      Inputs inputs = {x};
      if (!c.axes.empty()) inputs.push_back(axes_tensor(c.axes));
      expect_vulkan_matches_reference(reduce_op(type, keepdims), inputs, kReduceTol);
    }
  }
}

TEST_P(ReduceVk, NoopWithEmptyAxesCopies) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {3, 13}, 5, -2.0, 2.0);
  expect_vulkan_matches_reference(reduce_op(GetParam(), true, true), {x, axes_tensor({})}, kReduceTol);
}

INSTANTIATE_TEST_SUITE_P(All, ReduceVk,
                         ::testing::Values(OpType::ReduceMean, OpType::ReduceSum, OpType::ReduceMax,
                                           OpType::ReduceMin, OpType::ReduceProd, OpType::ReduceL2),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

TEST(ReduceVk, MaxAndMinPropagateNaN) {
  MOTE_REQUIRE_VULKAN();
  for (Shape shape : {Shape{4, 200}, Shape{200, 4}}) {
    Tensor x = random_tensor(DType::F32, shape, 7);
    x.data<float>()[57] = std::numeric_limits<float>::quiet_NaN();
    for (int64_t axis : {0, 1}) {
      expect_vulkan_matches_reference(reduce_op(OpType::ReduceMax), {x, axes_tensor({axis})});
      expect_vulkan_matches_reference(reduce_op(OpType::ReduceMin), {x, axes_tensor({axis})});
    }
  }
}

TEST(ReduceVk, IntegerDataRunsOnCpu) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::I32, {3, 13}, 1, -5, 5);
  auto run = run_op_vulkan(reduce_op(OpType::ReduceSum), {x, axes_tensor({1})}, GpuPrecision::kF32);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(run->placement[0].device, "cpu");
}

class GlobalPoolVk : public ::testing::TestWithParam<OpType> {};

TEST_P(GlobalPoolVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  // Planes of 49 and 169 (MobileNetV2's and SqueezeNet's last) fold per
  // invocation on CPU-type devices, 1089 in a workgroup.
  const Shape shapes[] = {{1, 3, 7, 7},    {2, 13, 1, 1},   {1, 5, 33, 33}, {1, 2, 5},
                          {1, 3, 2, 3, 4}, {2, 70, 13, 13}, {1, 300, 7, 7}};
  uint32_t seed = 1;
  for (const Shape& s : shapes) {
    expect_vulkan_matches_reference(make_op(GetParam()), {random_tensor(DType::F32, s, seed++)}, kReduceTol);
  }
}

INSTANTIATE_TEST_SUITE_P(All, GlobalPoolVk, ::testing::Values(OpType::GlobalAveragePool, OpType::GlobalMaxPool),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

class SoftmaxVk : public ::testing::TestWithParam<OpType> {};

TEST_P(SoftmaxVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  OpType type = GetParam();
  const std::pair<Shape, int64_t> cases[] = {
      {{1, 1}, -1},     {{3, 13}, -1},   {{2, 127}, 1},     // rows: an invocation each on CPU-type devices
      {{40, 256}, -1},  {{5, 300}, -1},  {{5, 3000}, -1},   // up to 256 so, then a workgroup each
      {{2, 3, 4}, 1},   {{3, 13, 2}, 0}, {{4, 5, 600}, 1},  // strided rows: an invocation each
      {{3, 200, 5}, 1},                                     // few long strided rows: workgroups
      {{1, 70000}, -1},                                     // longer than one invocation could loop
  };
  uint32_t seed = 1;
  for (const auto& [shape, axis] : cases) {
    Tensor x = random_tensor(DType::F32, shape, seed++, -6.0, 6.0);
    fb::AxisAttrsT a;
    a.axis = axis;
    expect_vulkan_matches_reference(make_op(type, a), {x}, kReduceTol);
  }
  // No attributes: ONNX's default axis -1.
  expect_vulkan_matches_reference(make_op(type), {random_tensor(DType::F32, {4, 13}, 99)}, kReduceTol);
}

INSTANTIATE_TEST_SUITE_P(All, SoftmaxVk, ::testing::Values(OpType::Softmax, OpType::LogSoftmax),
                         [](const auto& info) { return std::string(op_type_name(info.param)); });

fb::OpT arg_op(OpType type, int64_t axis, bool keepdims, bool last) {
  fb::ArgReduceAttrsT a;
  a.axis = axis;
  a.keepdims = keepdims;
  a.select_last_index = last;
  return make_op(type, a);
}

TEST(ArgReduceVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const std::pair<Shape, int64_t> cases[] = {
      {{1}, 0}, {{3, 13}, 1}, {{13, 127}, 0}, {{2, 3, 5}, -2},  // an invocation per output
      {{2, 1000}, 1}, {{3000, 2}, 0}, {{1, 70000}, 1},          // a workgroup per output
  };
  uint32_t seed = 1;
  for (const auto& [shape, axis] : cases) {
    // Integer values: plenty of ties for select_last_index to decide.
    Tensor ties = random_tensor(DType::F32, shape, seed++, -3.0, 3.0);
    for (int64_t i = 0; i < ties.numel(); ++i) ties.data<float>()[i] = std::round(ties.data<float>()[i]);
    Tensor smooth = random_tensor(DType::F32, shape, seed++);
    for (OpType type : {OpType::ArgMax, OpType::ArgMin}) {
      for (bool last : {false, true}) {
        for (bool keepdims : {true, false}) {
          expect_vulkan_matches_reference(arg_op(type, axis, keepdims, last), {ties});
          expect_vulkan_matches_reference(arg_op(type, axis, keepdims, last), {smooth});
        }
      }
    }
  }
}

TEST(ArgReduceVk, NaNWins) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {3, 13}, 4);
  x.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[20] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[22] = std::numeric_limits<float>::quiet_NaN();
  for (bool last : {false, true}) {
    expect_vulkan_matches_reference(arg_op(OpType::ArgMax, 1, true, last), {x});
    expect_vulkan_matches_reference(arg_op(OpType::ArgMin, 1, true, last), {x});
  }
}

fb::OpT topk_op(int64_t axis, bool largest) {
  fb::TopKAttrsT a;
  a.axis = axis;
  a.largest = largest;
  return make_op(OpType::TopK, a);
}

TEST(TopKVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  struct Case {
    Shape shape;
    int64_t axis, k;
  };
  const Case cases[] = {{{1}, 0, 1},     {{3, 13}, -1, 5}, {{3, 13}, 1, 13},   {{13, 127}, 0, 3},
                        {{2, 127, 3}, 1, 10}, {{1, 1000}, 1, 100}, {{2, 5000}, 1, 200}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    Tensor smooth = random_tensor(DType::F32, c.shape, seed++);
    Tensor ties = random_tensor(DType::F32, c.shape, seed++, -2.0, 2.0);
    for (int64_t i = 0; i < ties.numel(); ++i) ties.data<float>()[i] = std::round(ties.data<float>()[i]);
    Tensor k = Tensor::from_vector<int64_t>({1}, {c.k});
    for (bool largest : {true, false}) {
      expect_vulkan_matches_reference(topk_op(c.axis, largest), {smooth, k});
      expect_vulkan_matches_reference(topk_op(c.axis, largest), {ties, k});
    }
  }
}

// k x (scan steps) loop iterations past a driver's loop limit (lavapipe's
// 65535, quirks.cpp) send TopK to the CPU; a device without the limit (an
// NVIDIA GPU) runs it, and must get it right.
TEST(TopKVk, LongSelectionPlacedByLoopLimit) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {1, 70000}, 9);
  Tensor k = Tensor::from_vector<int64_t>({1}, {5000});
  auto run = run_op_vulkan(topk_op(1, true), {x, k}, GpuPrecision::kF32);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  bool loop_limit = vk::Device::get().value()->features().max_loop_iterations < 0xffffffffu;
  EXPECT_EQ(run->placement[0].device, loop_limit ? "cpu" : "vulkan");
  if (!loop_limit) expect_vulkan_matches_reference(topk_op(1, true), {x, k});
}

TEST(TopKVk, NaNSortsAboveNumbers) {
  MOTE_REQUIRE_VULKAN();
  Tensor x = random_tensor(DType::F32, {2, 13}, 8);
  x.data<float>()[3] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[17] = std::numeric_limits<float>::quiet_NaN();
  Tensor k = Tensor::from_vector<int64_t>({1}, {13});
  expect_vulkan_matches_reference(topk_op(1, true), {x, k});
  expect_vulkan_matches_reference(topk_op(1, false), {x, k});
}

fb::OpT cumsum_op(bool exclusive, bool reverse) {
  fb::CumSumAttrsT a;
  a.exclusive = exclusive;
  a.reverse = reverse;
  return make_op(OpType::CumSum, a);
}

TEST(CumSumVk, MatchesReference) {
  MOTE_REQUIRE_VULKAN();
  const std::pair<Shape, int64_t> cases[] = {
      {{1}, 0}, {{13}, 0}, {{4, 5, 6}, 1}, {{1500, 100}, 0},  // an invocation per line
      {{3, 127}, 1}, {{3, 127}, -2}, {{2, 3000}, 1},         // a workgroup per line
      {{1, 70000}, 1},                                       // longer than one invocation could loop
  };
  uint32_t seed = 1;
  for (const auto& [shape, axis] : cases) {
    Tensor x = random_tensor(DType::F32, shape, seed++);
    for (Tensor axis_tensor : {Tensor::from_vector<int64_t>({}, {axis}), Tensor::from_vector<int32_t>({1}, {
                                   static_cast<int32_t>(axis)})}) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          // The axis must be a constant for the GPU path (bit 1).
          expect_vulkan_matches_reference(cumsum_op(exclusive, reverse), {x, axis_tensor}, kReduceTol, 0b10);
        }
      }
    }
  }
}

}  // namespace
}  // namespace mote::test
