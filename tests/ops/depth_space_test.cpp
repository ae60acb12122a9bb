#include "tests/ops/data_movement_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT depth_space_op(fb::OpType type, int64_t blocksize, fb::DepthToSpaceMode mode = fb::DepthToSpaceMode::DCR) {
  fb::DepthSpaceAttrsT a;
  a.blocksize = blocksize;
  a.mode = mode;
  return make_op(type, a);
}

Tensor iota_i64(Shape shape) {
  Tensor t = Tensor::zeros(DType::I64, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = i;
  return t;
}

TEST(DepthSpaceOps, CpuMatchesReference) {
  uint32_t seed = 1;
  for (int64_t n : odd_sizes()) {
    for (DType dtype : copy_dtypes()) {
      for (int64_t b : {1, 2, 3}) {
        for (auto mode : {fb::DepthToSpaceMode::DCR, fb::DepthToSpaceMode::CRD}) {
          Tensor x = distinct_tensor(dtype, {2, 2 * b * b, n, 5}, seed++);
          expect_cpu_matches_reference_exactly(depth_space_op(fb::OpType::DepthToSpace, b, mode), {x});
        }
        Tensor y = distinct_tensor(dtype, {2, 3, n * b, 4 * b}, seed++);
        expect_cpu_matches_reference_exactly(depth_space_op(fb::OpType::SpaceToDepth, b), {y});
      }
    }
  }
  Tensor big = distinct_tensor(DType::F32, {1, 64, 40, 41}, 5);
  expect_cpu_matches_reference_exactly(depth_space_op(fb::OpType::DepthToSpace, 2, fb::DepthToSpaceMode::CRD), {big});
  expect_cpu_matches_reference_exactly(depth_space_op(fb::OpType::DepthToSpace, 4), {big});
  expect_cpu_matches_reference_exactly(depth_space_op(fb::OpType::SpaceToDepth, 2),
                                       {distinct_tensor(DType::F32, {1, 16, 80, 82}, 6)});
}

// numpy, x = np.arange(16).reshape(1, 8, 1, 2), b = 2:
//   DCR: x.reshape(1, b, b, 2, 1, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 2, 4)
//   CRD: x.reshape(1, 2, b, b, 1, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 2, 4)
TEST(DepthSpaceOps, DepthToSpaceReferenceMatchesNumpy) {
  auto dcr = run_reference(depth_space_op(fb::OpType::DepthToSpace, 2), {iota_i64({1, 8, 1, 2})});
  ASSERT_EQ(dcr.size(), 1u);
  expect_tensors_near(dcr[0],
                      Tensor::from_vector<int64_t>({1, 2, 2, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}),
                      0, 0);
  auto crd = run_reference(depth_space_op(fb::OpType::DepthToSpace, 2, fb::DepthToSpaceMode::CRD),
                           {iota_i64({1, 8, 1, 2})});
  ASSERT_EQ(crd.size(), 1u);
  expect_tensors_near(crd[0],
                      Tensor::from_vector<int64_t>({1, 2, 2, 4}, {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}),
                      0, 0);
}

// numpy, x = np.arange(32).reshape(1, 2, 4, 4), b = 2:
//   x.reshape(1, 2, 2, b, 2, b).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2)
TEST(DepthSpaceOps, SpaceToDepthReferenceMatchesNumpy) {
  auto y = run_reference(depth_space_op(fb::OpType::SpaceToDepth, 2), {iota_i64({1, 2, 4, 4})});
  ASSERT_EQ(y.size(), 1u);
  expect_tensors_near(y[0],
                      Tensor::from_vector<int64_t>({1, 8, 2, 2}, {0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27,
                                                                  4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15, 21, 23, 29, 31}),
                      0, 0);
}

TEST(DepthSpaceOps, ShapeErrorsAreReported) {
  expect_rejected(depth_space_op(fb::OpType::DepthToSpace, 2), {iota_i64({8, 2, 2})}, "must be 4-D");
  expect_rejected(depth_space_op(fb::OpType::DepthToSpace, 2), {iota_i64({1, 6, 2, 2})}, "not a multiple");
  expect_rejected(depth_space_op(fb::OpType::DepthToSpace, 0), {iota_i64({1, 4, 2, 2})}, "at least 1");
  expect_rejected(depth_space_op(fb::OpType::SpaceToDepth, 2), {iota_i64({1, 1, 3, 2})}, "not multiples");
  expect_rejected(depth_space_op(fb::OpType::SpaceToDepth, -1), {iota_i64({1, 1, 2, 2})}, "at least 1");
  expect_rejected(depth_space_op(fb::OpType::DepthToSpace, 2, static_cast<fb::DepthToSpaceMode>(7)),
                  {iota_i64({1, 4, 2, 2})}, "unknown mode");
}

}  // namespace
}  // namespace mote::test
