// QLinearAveragePool and QLinearGlobalAveragePool: the reference against
// AveragePool's float reference on the dequantised input (float values
// instead of integer codes, the two references sharing the window walk of
// pool_window.hpp; requantised, it may differ by one quantum where a mean
// lies at or near a tie), and the optimised kernels, whose tap ranges are
// their own, against the reference exactly (both requantise each mean in
// double).
#include "runtime/ops/qlinear_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/core/shape_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/qlinear_conv_cases.hpp"
#include "tests/support/quant_inputs.hpp"

namespace mote::test {
namespace {

// The float reference's answer, requantised: AveragePool (or
// GlobalAveragePool) on 0.05 (x - zero), then round(y / 0.021) + zero.
Tensor float_path(const fb::OpT& qop, const Inputs& inputs, DType y_type) {
  const Tensor& x = *inputs[0];
  const double x_zero = x.dtype() == DType::I8 ? -7 : 121;
  Tensor real = Tensor::zeros(DType::F32, x.shape());
  const std::vector<double> codes = x.to_doubles();
  for (size_t i = 0; i < codes.size(); ++i) real.data<float>()[i] = static_cast<float>(0.05 * (codes[i] - x_zero));
  fb::OpT op =
      make_op(qop.type == fb::OpType::QLinearAveragePool ? fb::OpType::AveragePool : fb::OpType::GlobalAveragePool);
  if (qop.type == fb::OpType::QLinearAveragePool) set_attrs(op, attrs<fb::PoolAttrsT>(qop));
  auto out = run_op(op, {real}, Impl::kReference);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = (*out)[0];
  const double y_zero = y_type == DType::I8 ? 3 : 130;
  std::vector<double> q;
  for (double v : y.to_doubles()) {
    q.push_back(std::clamp(std::nearbyint(v / 0.021f) + y_zero, code_low(y_type), code_high(y_type) - 1));
  }
  Tensor t = Tensor::zeros(y_type, y.shape());
  for (size_t i = 0; i < q.size(); ++i) {
    if (y_type == DType::I8) {
      t.data<int8_t>()[i] = static_cast<int8_t>(q[i]);
    } else {
      t.data<uint8_t>()[i] = static_cast<uint8_t>(q[i]);
    }
  }
  return t;
}

void check_pool(const fb::OpT& op, const Shape& x, DType x_type, DType y_type, uint32_t seed = 1) {
  SCOPED_TRACE(shape_to_string(x) + " " + dtype_name(x_type) + " -> " + dtype_name(y_type));
  const Inputs inputs = qpool_inputs(x, x_type, y_type, seed);
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& ref = (*expected)[0];
  const Tensor independent = float_path(op, inputs, y_type);
  expect_tensors_near(ref, independent, 0.0, 1.0, "reference against the float AveragePool");
  // Small windows make exact ties common (a sum of 21 over 4 taps is 12.5
  // quanta of Y at the scales' ratio 50/21), which the two paths' roundings
  // of the scales may settle either way; a wrong count or padding would
  // move most outputs.
  EXPECT_LE(bytes_off(ref, independent), 2 + ref.numel() / 20);
  if (ref.numel() >= 64) EXPECT_GE(distinct_bytes(ref), 20) << "outputs too uniform";
  for (int threads : {1, 2}) {
    auto actual = run_op(op, inputs, Impl::kCpu, threads);
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_tensors_near((*actual)[0], ref, 0.0, 0.0, "threads " + std::to_string(threads));
  }
}

// Every attribute variant of the float pools' tests (dilation, strides,
// ceil_mode, auto_pad, count_include_pad), on both types.
TEST(QLinearPoolOps, AveragePoolVariantsMatchReference) {
  int checked = 0;
  for (const PoolParams& p : pool_attribute_variants()) {
    for (DType t : {DType::U8, DType::I8}) {
      SCOPED_TRACE("variant " + std::to_string(checked / 2));
      check_pool(pool_op(fb::OpType::QLinearAveragePool, p), {1, 3, 11, 10}, t,
                 t == DType::U8 ? DType::I8 : DType::U8, static_cast<uint32_t>(checked));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 28);
}

// 1-D and 3-D windows, a 7x7 window over a 7x7 input (a classifier's
// average), and batches.
TEST(QLinearPoolOps, AveragePoolRanksMatchReference) {
  check_pool(pool_op(fb::OpType::QLinearAveragePool, {{3}, {2}, {1, 1}}), {2, 4, 17}, DType::U8, DType::U8);
  check_pool(pool_op(fb::OpType::QLinearAveragePool, {{2, 3, 2}, {1, 2, 2}, {0, 1, 1, 1, 0, 0}}), {1, 2, 5, 7, 6},
             DType::I8, DType::I8, 2);
  check_pool(pool_op(fb::OpType::QLinearAveragePool, {{7, 7}}), {2, 64, 7, 7}, DType::U8, DType::U8, 3);
}

TEST(QLinearPoolOps, GlobalAveragePoolMatchesReference) {
  const fb::OpT op = make_op(fb::OpType::QLinearGlobalAveragePool);
  check_pool(op, {1, 512, 7, 7}, DType::U8, DType::U8);
  check_pool(op, {2, 33, 5}, DType::I8, DType::U8, 2);
  check_pool(op, {1, 8, 3, 4, 5}, DType::U8, DType::I8, 3);
}

TEST(QLinearPoolOps, RejectsBadParameters) {
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    SCOPED_TRACE(impl_name(impl));
    Inputs inputs = qpool_inputs({1, 2, 4, 4}, DType::U8, DType::U8, 1);
    inputs[kQUnaryY.scale] = scalar_of(DType::F32, std::nan(""));
    auto out = run_op(make_op(fb::OpType::QLinearGlobalAveragePool), inputs, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("Y_scale"), std::string::npos) << out.status().to_string();
    inputs = qpool_inputs({1, 2, 4, 4}, DType::U8, DType::U8, 1);
    inputs[kQUnaryX.zero] = scalar_of(DType::I8, 0);
    out = run_op(pool_op(fb::OpType::QLinearAveragePool, {{2, 2}}), inputs, impl);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("X_zero_point"), std::string::npos) << out.status().to_string();
  }
}

}  // namespace
}  // namespace mote::test
