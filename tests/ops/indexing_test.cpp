// Indexing ops added for ONNX coverage (GatherElements, ScatterND,
// NegativeLogLikelihoodLoss, NonMaxSuppression): results against values
// worked out by hand (numpy gives the same), and bad indices reported as
// errors on every CPU implementation, never read out of bounds. The ONNX
// conformance suite checks them further against ONNX's own outputs.
#include <limits>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

using T = fb::OpType;

template <class V>
Tensor values(Shape shape, std::vector<V> v) {
  return Tensor::from_vector<V>(std::move(shape), std::move(v));
}

void expect_error(const fb::OpT& op, const Inputs& inputs, const std::string& fragment) {
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto result = run_op(op, inputs, impl);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find(fragment), std::string::npos) << result.status().to_string();
  }
}

TEST(IndexingOps, GatherElementsPicksAlongTheAxis) {
  fb::AxisAttrsT axis;
  axis.axis = 1;
  // np.take_along_axis([[1, 2], [3, 4]], [[0, 0], [1, -2]], axis=1)
  auto out = run_op(make_op(T::GatherElements, axis),
                    {values<float>({2, 2}, {1, 2, 3, 4}), values<int64_t>({2, 2}, {0, 0, 1, -2})}, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{1, 1, 4, 3}));
  expect_error(make_op(T::GatherElements, axis),
               {values<float>({2, 2}, {1, 2, 3, 4}), values<int64_t>({2, 2}, {0, 2, 0, 0})}, "out of range");
}

TEST(IndexingOps, ScatterNDWritesAndAddsSlices) {
  fb::ScatterAttrsT add;
  add.reduction = fb::ScatterReduction::Add;
  // data[[1], [1]] += [[5, 6], [7, 8]] on rows of a 3x2 matrix.
  const Inputs inputs = {values<float>({3, 2}, {1, 2, 3, 4, 5, 6}), values<int64_t>({2, 1}, {1, 1}),
                         values<float>({2, 2}, {5, 6, 7, 8})};
  auto out = run_op(make_op(T::ScatterND, add), inputs, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{1, 2, 15, 18, 5, 6}));
  expect_error(make_op(T::ScatterND, add),
               {values<float>({3, 2}, {1, 2, 3, 4, 5, 6}), values<int64_t>({1, 1}, {3}), values<float>({1, 2}, {0, 0})},
               "out of range");
}

TEST(IndexingOps, NegativeLogLikelihoodLossWeighsAndIgnores) {
  fb::LossAttrsT mean;
  mean.has_ignore_index = true;
  mean.ignore_index = 2;
  // log-probabilities [3 samples, 3 classes], targets [0, 1, 2 (ignored)],
  // class weights [1, 2, 3]: (0.5 * 1 + 1.5 * 2) / (1 + 2) = 3.5 / 3.
  const Inputs inputs = {values<float>({3, 3}, {-0.5f, -1, -2, -1, -1.5f, -3, -4, -4, -4}),
                         values<int64_t>({3}, {0, 1, 2}), values<float>({3}, {1, 2, 3})};
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto out = run_op(make_op(T::NegativeLogLikelihoodLoss, mean), inputs, impl);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_NEAR((*out)[0].to_doubles()[0], 3.5 / 3.0, 1e-6);
  }
  expect_error(make_op(T::NegativeLogLikelihoodLoss, mean),
               {values<float>({1, 3}, {-1, -1, -1}), values<int64_t>({1}, {7}), std::nullopt}, "outside [0, 3)");
}

TEST(IndexingOps, NonMaxSuppressionKeepsTheBestOfOverlappingBoxes) {
  // Boxes 0 and 1 overlap with IoU 0.81 (> 0.5); box 2 is apart. Scores
  // make 1 the best, so 0 is suppressed; 2 stays.
  const Inputs inputs = {values<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6}),
                         values<float>({1, 1, 3}, {0.8f, 0.9f, 0.3f}), values<int64_t>({1}, {10}),
                         values<float>({1}, {0.5f}), values<float>({1}, {0.0f})};
  auto out = run_op(make_op(T::NonMaxSuppression), inputs, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{0, 0, 1, 0, 0, 2}));

  // INT64_MAX boxes per class means "no limit" (torchvision's export): both kept.
  Inputs unlimited = inputs;
  unlimited[2] = values<int64_t>({1}, {std::numeric_limits<int64_t>::max()});
  auto all = run_op(make_op(T::NonMaxSuppression), unlimited, Impl::kCpu);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  EXPECT_EQ((*all)[0].shape(), (Shape{2, 3}));
}

TEST(IndexingOps, UniqueGroupsElementsAndSlices) {
  // ONNX's own example: X = [2, 1, 1, 3, 4, 3].
  const Inputs flat = {values<float>({6}, {2, 1, 1, 3, 4, 3})};
  fb::UniqueAttrsT sorted;
  auto out = run_op(make_op(T::Unique, sorted), flat, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ((*out)[1].to_int64s(), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ((*out)[2].to_int64s(), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ((*out)[3].to_int64s(), (std::vector<int64_t>{2, 1, 2, 1}));
  fb::UniqueAttrsT first_seen;
  first_seen.sorted = false;
  out = run_op(make_op(T::Unique, first_seen), flat, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].to_doubles(), (std::vector<double>{2, 1, 3, 4}));
  EXPECT_EQ((*out)[2].to_int64s(), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ((*out)[3].to_int64s(), (std::vector<int64_t>{1, 2, 2, 1}));

  // Rows along axis 0; i64 values beyond 2^53 stay distinct.
  fb::UniqueAttrsT rows;
  rows.has_axis = true;
  const int64_t big = (int64_t{1} << 60) + 1;
  out = run_op(make_op(T::Unique, rows), {values<int64_t>({3, 2}, {big, 0, big - 1, 0, big, 0})}, Impl::kCpu);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ((*out)[0].to_int64s(), (std::vector<int64_t>{big - 1, 0, big, 0}));
  EXPECT_EQ((*out)[2].to_int64s(), (std::vector<int64_t>{1, 0, 1}));
  rows.axis = 2;
  expect_error(make_op(T::Unique, rows), {values<float>({2}, {1, 2})}, "out of range");
}

}  // namespace
}  // namespace mote::test
