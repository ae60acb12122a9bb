#include <limits>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

fb::OpT norm_op(fb::OpType type, float epsilon = 1e-5f, int64_t axis = -1) {
  fb::NormAttrsT a;
  a.epsilon = epsilon;
  a.axis = axis;
  return make_op(type, a);
}

// A LayerNormalization node that also asks for its Mean and InvStdDev outputs.
fb::OpT layer_norm_op(int64_t axis, int outputs = 3) {
  fb::OpT op = norm_op(fb::OpType::LayerNormalization, 1e-5f, axis);
  for (int i = 0; i < outputs; ++i) op.outputs.push_back(3 + i);
  return op;
}

Inputs batch_norm_inputs(const Shape& x_shape, uint32_t seed) {
  const int64_t c = x_shape[1];
  return {random_tensor(DType::F32, x_shape, seed, -3, 3), random_tensor(DType::F32, {c}, seed + 1, -2, 2),
          random_tensor(DType::F32, {c}, seed + 2), random_tensor(DType::F32, {c}, seed + 3),
          random_tensor(DType::F32, {c}, seed + 4, 0.1, 2.0)};
}

TEST(NormalizationOps, BatchNormCpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization), batch_norm_inputs({2, 3, n, 5}, 1));
    expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization), batch_norm_inputs({1, n, 7}, 2));
    // N x C with no spatial dims takes the channel-vector path.
    expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization), batch_norm_inputs({3, n}, 3));
    expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization, 0.5f), batch_norm_inputs({n, 2, 2, 3, 2}, 4));
  }
}

fb::OpT training_batch_norm_op(float momentum = 0.9f) {
  fb::NormAttrsT a;
  a.training_mode = true;
  a.momentum = momentum;
  fb::OpT op = make_op(fb::OpType::BatchNormalization, a);
  op.outputs = {5, 6, 7};  // Y, running_mean, running_var
  return op;
}

TEST(NormalizationOps, BatchNormTrainingCpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    expect_cpu_matches_reference(training_batch_norm_op(), batch_norm_inputs({2, 3, n, 5}, 21), 1e-4, 1e-5);
    expect_cpu_matches_reference(training_batch_norm_op(0.5f), batch_norm_inputs({n, 4}, 22), 1e-4, 1e-5);
    expect_cpu_matches_reference(training_batch_norm_op(0.0f), batch_norm_inputs({1, n, 2, 3}, 23), 1e-4, 1e-5);
  }
}

TEST(NormalizationOps, InstanceNormCpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    auto inputs = [&](const Shape& shape, uint32_t seed) {
      return Inputs{random_tensor(DType::F32, shape, seed, -3, 5), random_tensor(DType::F32, {shape[1]}, seed + 1),
                    random_tensor(DType::F32, {shape[1]}, seed + 2)};
    };
    expect_cpu_matches_reference(norm_op(fb::OpType::InstanceNormalization), inputs({2, 3, n}, 5), 1e-4, 1e-5);
    expect_cpu_matches_reference(norm_op(fb::OpType::InstanceNormalization), inputs({1, n, 4, 5}, 6), 1e-4, 1e-5);
    expect_cpu_matches_reference(norm_op(fb::OpType::InstanceNormalization, 1e-2f), inputs({2, 2, n, n}, 7), 1e-4,
                                 1e-5);
  }
  // Planes longer than one SIMD sum block, values far from zero.
  expect_cpu_matches_reference(norm_op(fb::OpType::InstanceNormalization),
                               {random_tensor(DType::F32, {1, 2, 97, 61}, 8, 100, 101),
                                random_tensor(DType::F32, {2}, 9), random_tensor(DType::F32, {2}, 10)},
                               1e-3, 1e-4);
}

TEST(NormalizationOps, LayerNormCpuMatchesReference) {
  for (int64_t n : odd_sizes()) {
    Tensor x = random_tensor(DType::F32, {3, 2, n}, 11, -4, 4);
    // Innermost axis, with and without bias.
    expect_cpu_matches_reference(
        layer_norm_op(-1), {x, random_tensor(DType::F32, {n}, 12), random_tensor(DType::F32, {n}, 13)}, 1e-4, 1e-5);
    expect_cpu_matches_reference(layer_norm_op(2, 1), {x, random_tensor(DType::F32, {n}, 14), std::nullopt}, 1e-4,
                                 1e-5);
    // Several normalised dims; full-size and broadcast parameters.
    expect_cpu_matches_reference(
        layer_norm_op(1), {x, random_tensor(DType::F32, {2, n}, 15), random_tensor(DType::F32, {n}, 16)}, 1e-4, 1e-5);
    expect_cpu_matches_reference(layer_norm_op(-2),
                                 {x, random_tensor(DType::F32, {2, 1}, 17), random_tensor(DType::F32, {1, n}, 18)},
                                 1e-4, 1e-5);
    expect_cpu_matches_reference(layer_norm_op(0), {x, random_tensor(DType::F32, {1}, 19), std::nullopt}, 1e-4, 1e-5);
  }
  expect_cpu_matches_reference(
      layer_norm_op(-1),
      {random_tensor(DType::F32, {2, 5000}, 20, -50, 60), random_tensor(DType::F32, {5000}, 21), std::nullopt}, 1e-4,
      1e-5);
}

TEST(NormalizationOps, EmptyInputIsFine) {
  expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization), batch_norm_inputs({0, 3, 2}, 1));
  expect_cpu_matches_reference(norm_op(fb::OpType::BatchNormalization), batch_norm_inputs({2, 3, 0}, 2));
  expect_cpu_matches_reference(layer_norm_op(-1),
                               {Tensor::zeros(DType::F32, {0, 4}), random_tensor(DType::F32, {4}, 3)});
  expect_cpu_matches_reference(
      norm_op(fb::OpType::InstanceNormalization),
      {Tensor::zeros(DType::F32, {0, 2, 3}), random_tensor(DType::F32, {2}, 4), random_tensor(DType::F32, {2}, 5)});
}

// x = np.array([0.5, -1, 2, 3, -0.25, 1.5, 4, 0, -2, 1, 2.5, -3]).reshape(2, 3, 2)
// scale, B, mean, var = [1.5, -0.5, 2], [0.1, 0.2, -0.3], [0.25, -1, 0.5], [0.5, 2, 0.1]
// y = (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * scale[:, None] + B[:, None]
TEST(NormalizationOps, BatchNormReferenceMatchesNumpy) {
  auto y =
      run_op(norm_op(fb::OpType::BatchNormalization),
             {Tensor::from_vector<float>({2, 3, 2}, {0.5f, -1, 2, 3, -0.25f, 1.5f, 4, 0, -2, 1, 2.5f, -3}),
              Tensor::from_vector<float>({3}, {1.5f, -0.5f, 2}), Tensor::from_vector<float>({3}, {0.1f, 0.2f, -0.3f}),
              Tensor::from_vector<float>({3}, {0.25f, -1, 0.5f}), Tensor::from_vector<float>({3}, {0.5f, 2, 0.1f})},
             Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0],
                      Tensor::from_vector<float>({2, 3, 2}, {0.63032478f, -2.55162382f, -0.86065751f, -1.21421003f,
                                                             -5.04317951f, 6.02423906f, 8.05487156f, -0.43032479f,
                                                             0.55355251f, -0.50710499f, 12.34847832f, -22.43483734f}),
                      1e-6, 1e-6);
}

// Training mode, same inputs, momentum 0.9: m, v = x.mean((0, 2)), x.var((0, 2))
// y = (x - m[:, None]) / np.sqrt(v[:, None] + 1e-5) * scale[:, None] + B[:, None]
// running_mean = mean * 0.9 + m * 0.1; running_var = var * 0.9 + v * 0.1
TEST(NormalizationOps, BatchNormTrainingReferenceMatchesNumpy) {
  auto y =
      run_op(training_batch_norm_op(),
             {Tensor::from_vector<float>({2, 3, 2}, {0.5f, -1, 2, 3, -0.25f, 1.5f, 4, 0, -2, 1, 2.5f, -3}),
              Tensor::from_vector<float>({3}, {1.5f, -0.5f, 2}), Tensor::from_vector<float>({3}, {0.1f, 0.2f, -0.3f}),
              Tensor::from_vector<float>({3}, {0.25f, -1, 0.5f}), Tensor::from_vector<float>({3}, {0.5f, 2, 0.1f})},
             Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  ASSERT_EQ(y->size(), 3u);
  expect_tensors_near((*y)[0],
                      Tensor::from_vector<float>(
                          {2, 3, 2}, {-0.19867507f, -1.3933754f, -0.06726086f, -0.3345217f, -0.7192664f, 0.9577993f,
                                      2.588959f, -0.5969085f, 1.0017825f, 0.2f, 1.9161227f, -3.3546555f}),
                      1e-6, 1e-6);
  expect_tensors_near((*y)[1], Tensor::from_vector<float>({3}, {0.3125f, -0.8f, 0.46875f}), 1e-6, 0);
  expect_tensors_near((*y)[2], Tensor::from_vector<float>({3}, {0.8046875f, 2.15f, 0.52554687f}), 1e-6, 0);
}

// x = np.array([1, 2, 4, -1, 0, 3.5]).reshape(1, 2, 3); scale = [1.5, -0.5]; B = [0.1, 0.2]
// m, v = x.mean(2, keepdims=True), x.var(2, keepdims=True)
// y = (x - m) / np.sqrt(v + 1e-5) * scale[None, :, None] + B[None, :, None]
TEST(NormalizationOps, InstanceNormReferenceMatchesNumpy) {
  auto y = run_op(norm_op(fb::OpType::InstanceNormalization),
                  {Tensor::from_vector<float>({1, 2, 3}, {1, 2, 4, -1, 0, 3.5f}),
                   Tensor::from_vector<float>({2}, {1.5f, -0.5f}), Tensor::from_vector<float>({2}, {0.1f, 0.2f})},
                  Impl::kReference);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  expect_tensors_near((*y)[0],
                      Tensor::from_vector<float>(
                          {1, 2, 3}, {-1.50356233f, -0.30089056f, 2.10445285f, 0.67512697f, 0.41596681f, -0.49109381f}),
                      1e-6, 1e-6);
}

// x = np.array([1, 2, 4, -1, 0, 3.5]).reshape(2, 3)
// axis -1: m = x.mean(-1, keepdims=True); inv = 1 / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
//          y = (x - m) * inv * [1, 2, 3] + [0.5, 0, -0.5]
// axis 0:  the same over the whole tensor, scale [1, 2, 3] broadcast, no bias.
TEST(NormalizationOps, LayerNormReferenceMatchesNumpy) {
  Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 4, -1, 0, 3.5f});
  auto last = run_op(layer_norm_op(-1),
                     {x, Tensor::from_vector<float>({3}, {1, 2, 3}), Tensor::from_vector<float>({3}, {0.5f, 0, -0.5f})},
                     Impl::kReference);
  ASSERT_TRUE(last.ok()) << last.status().to_string();
  ASSERT_EQ(last->size(), 3u);
  expect_tensors_near((*last)[0],
                      Tensor::from_vector<float>(
                          {2, 3}, {-0.56904155f, -0.53452075f, 3.50890565f, -0.45025399f, -0.86386728f, 3.64656281f}),
                      1e-6, 1e-6);
  expect_tensors_near((*last)[1], Tensor::from_vector<float>({2, 1}, {2.33333333f, 0.83333333f}), 1e-6, 0);
  expect_tensors_near((*last)[2], Tensor::from_vector<float>({2, 1}, {0.80178115f, 0.51832036f}), 1e-6, 0);

  auto whole =
      run_op(layer_norm_op(0), {x, Tensor::from_vector<float>({3}, {1, 2, 3}), std::nullopt}, Impl::kReference);
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  expect_tensors_near((*whole)[0],
                      Tensor::from_vector<float>(
                          {2, 3}, {-0.326022f, 0.46574572f, 4.05198765f, -1.44381166f, -1.76983368f, 3.21364546f}),
                      1e-6, 1e-6);
  expect_tensors_near((*whole)[1], Tensor::from_vector<float>({1, 1}, {1.58333333f}), 1e-6, 0);
  expect_tensors_near((*whole)[2], Tensor::from_vector<float>({1, 1}, {0.55889485f}), 1e-6, 0);
}

// Optional outputs exist only when the node has them, so kernels skip them otherwise.
TEST(NormalizationOps, OptionalOutputsFollowTheNode) {
  Tensor x = random_tensor(DType::F32, {2, 3}, 1);
  Tensor scale = random_tensor(DType::F32, {3}, 2);
  for (int outputs : {0, 1, 2, 3}) {
    for (Impl impl : {Impl::kReference, Impl::kCpu}) {
      auto y = run_op(layer_norm_op(-1, outputs), {x, scale}, impl);
      ASSERT_TRUE(y.ok()) << y.status().to_string();
      EXPECT_EQ(y->size(), static_cast<size_t>(std::max(outputs, 1))) << impl_name(impl);
    }
  }
  auto plain = run_op(training_batch_norm_op(), batch_norm_inputs({2, 3, 4}, 1), Impl::kCpu);
  fb::OpT y_only = training_batch_norm_op();
  y_only.outputs = {5};
  auto training_y_only = run_op(y_only, batch_norm_inputs({2, 3, 4}, 1), Impl::kCpu);
  ASSERT_TRUE(plain.ok() && training_y_only.ok());
  EXPECT_EQ(plain->size(), 3u);
  EXPECT_EQ(training_y_only->size(), 1u);
  expect_tensors_near((*training_y_only)[0], (*plain)[0], 0, 0);
}

TEST(NormalizationOps, ShapeErrors) {
  auto expect_code = [](const Result<std::vector<Tensor>>& r, StatusCode code, const char* what) {
    EXPECT_EQ(r.status().code(), code) << what << ": " << r.status().to_string();
  };
  const StatusCode invalid = StatusCode::kInvalidModel;
  // BatchNormalization
  {
    Inputs good = batch_norm_inputs({2, 3, 4}, 1);
    Inputs wrong_channels = good;
    wrong_channels[3] = random_tensor(DType::F32, {4}, 2);
    expect_code(run_op(norm_op(fb::OpType::BatchNormalization), wrong_channels, Impl::kCpu), invalid,
                "mean with the wrong channel count");
    Inputs rank1 = good;
    rank1[0] = random_tensor(DType::F32, {3}, 3);
    expect_code(run_op(norm_op(fb::OpType::BatchNormalization), rank1, Impl::kCpu), invalid, "rank-1 X");
    Inputs int_x = good;
    int_x[0] = random_tensor(DType::I32, {2, 3, 4}, 3);
    expect_code(run_op(norm_op(fb::OpType::BatchNormalization), int_x, Impl::kCpu), invalid, "integer X");
    expect_code(run_op(norm_op(fb::OpType::BatchNormalization, -1.0f), good, Impl::kCpu), invalid, "negative epsilon");
    fb::OpT with_stats = norm_op(fb::OpType::BatchNormalization);
    with_stats.outputs = {5, 6, 7};
    expect_code(run_op(with_stats, good, Impl::kCpu), invalid, "running statistics outputs without training_mode");
    fb::NormAttrsT bad_momentum;
    bad_momentum.momentum = std::numeric_limits<float>::infinity();
    expect_code(run_op(make_op(fb::OpType::BatchNormalization, bad_momentum), good, Impl::kCpu), invalid,
                "infinite momentum");
  }
  // InstanceNormalization
  {
    Tensor scale = random_tensor(DType::F32, {3}, 1);
    expect_code(run_op(norm_op(fb::OpType::InstanceNormalization), {random_tensor(DType::F32, {2, 3}, 1), scale, scale},
                       Impl::kCpu),
                invalid, "rank-2 input");
    expect_code(run_op(norm_op(fb::OpType::InstanceNormalization),
                       {random_tensor(DType::F32, {2, 4, 5}, 1), scale, scale}, Impl::kCpu),
                invalid, "scale with the wrong channel count");
    expect_code(
        run_op(norm_op(fb::OpType::InstanceNormalization),
               {random_tensor(DType::F32, {2, 3, 5}, 1), random_tensor(DType::F32, {1, 3}, 1), scale}, Impl::kCpu),
        invalid, "2-D scale");
  }
  // LayerNormalization
  {
    Tensor x = random_tensor(DType::F32, {2, 3, 4}, 1);
    expect_code(run_op(layer_norm_op(3), {x, random_tensor(DType::F32, {4}, 1)}, Impl::kCpu), invalid,
                "axis out of range");
    expect_code(run_op(layer_norm_op(-4), {x, random_tensor(DType::F32, {4}, 1)}, Impl::kCpu), invalid,
                "negative axis out of range");
    expect_code(run_op(layer_norm_op(-1), {x, random_tensor(DType::F32, {3}, 1)}, Impl::kCpu), invalid,
                "scale not matching the normalised dims");
    expect_code(run_op(layer_norm_op(-1), {x, random_tensor(DType::F32, {2, 1, 4}, 1)}, Impl::kCpu), invalid,
                "scale with more dims than normalised");
    expect_code(run_op(layer_norm_op(-1), {x, random_tensor(DType::F32, {4}, 1), random_tensor(DType::F32, {5}, 1)},
                       Impl::kCpu),
                invalid, "bias not matching");
    expect_code(run_op(layer_norm_op(-1), {x, random_tensor(DType::I32, {4}, 1)}, Impl::kCpu), invalid,
                "integer scale");
  }
}

}  // namespace
}  // namespace mote::test
