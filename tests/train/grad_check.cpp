#include "tests/train/grad_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mote/model.hpp"
#include "mote/session.hpp"
#include "runtime/train/autodiff.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {

namespace {

bool is_float(DType d) { return d == DType::F32; }

double weighted_sum(const Tensor& y, const std::vector<double>& r) {
  std::vector<double> v = y.to_doubles();
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += v[i] * r[i];
  return sum;
}

}  // namespace

Tensor away_from_zero(Shape shape, uint32_t seed, double margin, double hi) {
  Tensor t = random_tensor(DType::F32, std::move(shape), seed, -hi, hi);
  float* d = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double m = std::abs(double{d[i]}) * (hi - margin) / hi + margin;
    d[i] = static_cast<float>(d[i] < 0 ? -m : m);
  }
  return t;
}

void check_gradients(const GradCase& c, const std::string& what) {
  TrainGraph g;
  std::vector<int> ids, wrt;
  std::vector<size_t> wrt_input;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& [name, value] = c.inputs[i];
    ids.push_back(g.input(name, value.dtype(), value.shape()));
    const bool constant = std::find(c.constant_inputs.begin(), c.constant_inputs.end(), name) != c.constant_inputs.end();
    if (is_float(value.dtype()) && !constant) {
      wrt.push_back(ids.back());
      wrt_input.push_back(i);
    }
  }
  const int y = c.forward(g, ids);
  ASSERT_TRUE(g.status().ok()) << what << ": " << g.status().to_string();
  Tensor r_tensor = random_tensor(DType::F32, g.shape(y), 4242, -1.0, 1.0);
  const std::vector<double> r = r_tensor.to_doubles();
  const int loss = g.op1(fb::OpType::ReduceSum, {g.mul(y, g.constant("r", r_tensor))});
  auto grads = build_gradients(g, loss, wrt);
  ASSERT_TRUE(grads.ok()) << what << ": " << grads.status().to_string();
  g.builder().mark_output(y, "y");
  for (size_t i = 0; i < grads->size(); ++i) g.builder().mark_output((*grads)[i], "grad_" + std::to_string(i));
  auto bytes = g.builder().serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  // Model::from_buffer wants 64-byte aligned bytes, which a u8 tensor has.
  Tensor aligned = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::memcpy(aligned.raw(), bytes->data(), bytes->size());
  auto model = Model::from_buffer(aligned.raw(), bytes->size(), what);
  ASSERT_TRUE(model.ok()) << what << ": " << model.status().to_string();
  auto session = Session::create(*model, {.backend = Backend::kCpu, .threads = 1});
  ASSERT_TRUE(session.ok()) << session.status().to_string();

  std::vector<Tensor> feed;
  for (const auto& in : c.inputs) feed.push_back(in.second.clone());
  auto out = (*session)->run(feed);
  ASSERT_TRUE(out.ok()) << what << ": " << out.status().to_string();
  const std::vector<Tensor> analytic(out->begin() + 1, out->end());

  for (size_t k = 0; k < wrt_input.size(); ++k) {
    Tensor& x = feed[wrt_input[k]];
    const std::vector<double> grad = analytic[k].to_doubles();
    ASSERT_EQ(static_cast<int64_t>(grad.size()), x.numel()) << what;
    for (int64_t e = 0; e < x.numel(); ++e) {
      float* p = x.data<float>() + e;
      const float original = *p;
      // The step actually taken: x +- eps rounded to f32.
      const float up = static_cast<float>(original + c.eps), down = static_cast<float>(original - c.eps);
      *p = up;
      auto plus = (*session)->run(feed);
      *p = down;
      auto minus = (*session)->run(feed);
      *p = original;
      ASSERT_TRUE(plus.ok() && minus.ok()) << what;
      const double fd = (weighted_sum((*plus)[0], r) - weighted_sum((*minus)[0], r)) / (double{up} - double{down});
      EXPECT_NEAR(grad[static_cast<size_t>(e)], fd, c.atol + c.rtol * std::abs(fd))
          << what << ": d/d " << c.inputs[wrt_input[k]].first << "[" << e << "]";
    }
  }
}

}  // namespace mote::test
