#include "tests/train/grad_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "mote/model.hpp"
#include "mote/session.hpp"
#include "runtime/train/autodiff.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {

namespace {

bool is_float(DType d) { return d == DType::F32 || d == DType::F64; }

// A float tensor converted to `dtype` (f32 or f64); other tensors copied.
Tensor as_float_dtype(const Tensor& t, DType dtype) {
  if (!is_float(t.dtype()) || t.dtype() == dtype) return t.clone();
  const std::vector<double> v = t.to_doubles();
  if (dtype == DType::F64) return Tensor::from_vector<double>(t.shape(), v);
  return Tensor::from_vector<float>(t.shape(), std::vector<float>(v.begin(), v.end()));
}

double weighted_sum(const Tensor& y, const std::vector<double>& r) {
  std::vector<double> v = y.to_doubles();
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += v[i] * r[i];
  return sum;
}

// A case's forward graph (output 0) and the gradients of L (outputs 1...),
// built with one float dtype and loaded into a session of one backend.
struct Built {
  Tensor bytes;  // the serialized model, which `model` reads in place
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
  std::vector<Tensor> feed;         // the inputs, in the float dtype
  std::vector<size_t> wrt_input;    // the input behind each gradient output
  std::vector<double> r;            // L's weights
};

Status build(const GradCase& c, DType float_dtype, Backend backend, const std::string& what, Built& b) {
  TrainGraph g;
  g.set_float_dtype(float_dtype);
  std::vector<int> ids, wrt;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& [name, value] = c.inputs[i];
    b.feed.push_back(as_float_dtype(value, float_dtype));
    ids.push_back(g.input(name, b.feed.back().dtype(), value.shape()));
    const bool constant =
        std::find(c.constant_inputs.begin(), c.constant_inputs.end(), name) != c.constant_inputs.end();
    if (is_float(value.dtype()) && !constant) {
      wrt.push_back(ids.back());
      b.wrt_input.push_back(i);
    }
  }
  const int y = c.forward(g, ids);
  MOTE_RETURN_IF_ERROR(g.status());
  // f32 values in either dtype, so both builds of a case weigh alike.
  Tensor r = as_float_dtype(random_tensor(DType::F32, g.shape(y), 4242, -1.0, 1.0), float_dtype);
  b.r = r.to_doubles();
  const int loss = g.op1(fb::OpType::ReduceSum, {g.mul(y, g.constant("r", r))});
  auto grads = build_gradients(g, loss, wrt);
  if (!grads.ok()) return grads.status();
  g.builder().mark_output(y, "y");
  for (size_t i = 0; i < grads->size(); ++i) g.builder().mark_output((*grads)[i], "grad_" + std::to_string(i));
  auto bytes = g.builder().serialize();
  if (!bytes.ok()) return bytes.status();
  // Model::from_buffer wants 64-byte aligned bytes, which a u8 tensor has.
  b.bytes = Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes->size())});
  std::memcpy(b.bytes.raw(), bytes->data(), bytes->size());
  auto model = Model::from_buffer(b.bytes.raw(), bytes->size(), what);
  if (!model.ok()) return model.status();
  b.model = *model;
  auto session = Session::create(b.model, {.backend = backend, .threads = 1});
  if (!session.ok()) return session.status();
  b.session = std::move(*session);
  return {};
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
  Built b;
  Status st = build(c, DType::F64, Backend::kReference, what, b);
  ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
  auto out = b.session->run(b.feed);
  ASSERT_TRUE(out.ok()) << what << ": " << out.status().to_string();
  if (c.expected_y) {
    const std::vector<double> y = (*out)[0].to_doubles(), want = c.expected_y->to_doubles();
    ASSERT_EQ((*out)[0].shape(), c.expected_y->shape()) << what;
    for (size_t e = 0; e < y.size(); ++e) {
      EXPECT_NEAR(y[e], want[e], c.y_tol * (1 + std::abs(want[e]))) << what << ": y[" << e << "]";
    }
  }
  const std::vector<Tensor> analytic(out->begin() + 1, out->end());
  for (const Tensor& grad : analytic) ASSERT_EQ(grad.dtype(), DType::F64) << what;

  for (size_t k = 0; k < b.wrt_input.size(); ++k) {
    Tensor& x = b.feed[b.wrt_input[k]];
    const std::vector<double> grad = analytic[k].to_doubles();
    ASSERT_EQ(static_cast<int64_t>(grad.size()), x.numel()) << what;
    for (int64_t e = 0; e < x.numel(); ++e) {
      double* p = x.data<double>() + e;
      const double original = *p;
      // The step actually taken: x +- eps as rounded in double.
      const double up = original + c.eps, down = original - c.eps;
      *p = up;
      auto plus = b.session->run(b.feed);
      *p = down;
      auto minus = b.session->run(b.feed);
      *p = original;
      ASSERT_TRUE(plus.ok() && minus.ok()) << what;
      const double fd = (weighted_sum((*plus)[0], b.r) - weighted_sum((*minus)[0], b.r)) / (up - down);
      EXPECT_NEAR(grad[static_cast<size_t>(e)], fd, c.atol + c.rtol * std::abs(fd))
          << what << ": d/d " << c.inputs[b.wrt_input[k]].first << "[" << e << "]";
    }
  }
}

void check_cpu_matches_reference(const GradCase& c, const std::string& what) {
  Built cpu, ref;
  Status st = build(c, DType::F32, Backend::kCpu, what, cpu);
  ASSERT_TRUE(st.ok()) << what << " (cpu, f32): " << st.to_string();
  st = build(c, DType::F64, Backend::kReference, what, ref);
  ASSERT_TRUE(st.ok()) << what << " (reference, f64): " << st.to_string();
  auto got = cpu.session->run(cpu.feed);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
  auto want = ref.session->run(ref.feed);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().to_string();
  ASSERT_EQ(got->size(), want->size()) << what;
  for (size_t k = 0; k < got->size(); ++k) {
    ASSERT_EQ((*got)[k].dtype(), DType::F32) << what;
    const std::vector<double> g = (*got)[k].to_doubles(), w = (*want)[k].to_doubles();
    ASSERT_EQ(g.size(), w.size()) << what;
    const std::string name = k == 0 ? "y" : "d/d " + c.inputs[cpu.wrt_input[k - 1]].first;
    for (size_t e = 0; e < g.size(); ++e) {
      EXPECT_NEAR(g[e], w[e], 1e-5 + 1e-4 * std::abs(w[e])) << what << ": " << name << "[" << e << "]";
    }
  }
}

}  // namespace mote::test
