#include "tests/support/op_test_util.hpp"

#include <cmath>

#include "runtime/cpu/thread_pool.hpp"

namespace mote::test {

fb::OpT make_op(fb::OpType type, const std::string& name) {
  fb::OpT op;
  op.type = type;
  op.name = name;
  return op;
}

Result<std::vector<Tensor>> run_op(const fb::OpT& op, const Inputs& inputs, Impl impl, int threads,
                                   const Inputs* prepare_inputs) {
  const OpDef* def = find_op_def(op.type);
  if (!def) return unsupported(std::string("no op definition for ") + op_type_name(op.type));
  const CpuKernel* kernel = impl == Impl::kReference ? find_reference_kernel(op.type) : find_cpu_kernel(op.type);
  // As in a session: an op without an optimised kernel runs the reference one.
  if (!kernel && impl == Impl::kCpu) kernel = find_reference_kernel(op.type);
  if (!kernel) return unsupported(std::string("no ") + impl_name(impl) + " kernel for " + op_type_name(op.type));

  ShapeContext sctx{op, {}, {}, {}};
  for (const auto& in : inputs) {
    TensorInfo info;
    if (in) {
      info.dtype = in->dtype();
      info.shape = in->shape();
      info.value = &*in;
    }
    sctx.inputs.push_back(info);
    sctx.present.push_back(in.has_value());
  }
  MOTE_RETURN_IF_ERROR(def->infer(sctx));

  std::vector<Tensor> outputs;
  for (const TensorInfo& info : sctx.outputs) outputs.push_back(Tensor::zeros(info.dtype, info.shape));

  ThreadPool pool(threads);
  KernelContext kctx{op, {}, {}, &pool, nullptr};
  for (const auto& in : inputs) kctx.inputs.push_back(in ? &*in : nullptr);
  for (Tensor& out : outputs) kctx.outputs.push_back(&out);
  std::unique_ptr<KernelState> state;
  if (kernel->prepare) {
    KernelContext pctx = kctx;
    if (prepare_inputs) {
      pctx.inputs.clear();
      for (const auto& in : *prepare_inputs) pctx.inputs.push_back(in ? &*in : nullptr);
    }
    MOTE_RETURN_IF_ERROR(kernel->prepare(pctx, state));
  }
  kctx.state = state.get();
  MOTE_RETURN_IF_ERROR(kernel->run(kctx));
  return outputs;
}

void expect_tensors_near(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                         const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape())
      << what << ": " << shape_to_string(actual.shape()) << " vs " << shape_to_string(expected.shape());
  std::vector<double> a = actual.to_doubles();
  std::vector<double> e = expected.to_doubles();
  int reported = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    bool same_inf = std::isinf(a[i]) && a[i] == e[i];
    if (both_nan || same_inf) continue;
    double tol = atol + rtol * std::fabs(e[i]);
    if (!(std::fabs(a[i] - e[i]) <= tol)) {
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i]
                    << " (tolerance " << tol << ")";
      if (++reported >= 5) return;
    }
  }
}

void expect_cpu_matches_reference(const fb::OpT& op, const Inputs& inputs, double rtol, double atol) {
  std::string where = std::string(op_type_name(op.type)) + " inputs:";
  for (const auto& in : inputs) where += " " + (in ? shape_to_string(in->shape()) : std::string("none"));
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok()) << where << ": reference failed: " << expected.status().to_string();
  for (int threads : {1, 2}) {
    auto actual = run_op(op, inputs, Impl::kCpu, threads);
    ASSERT_TRUE(actual.ok()) << where << ": cpu failed: " << actual.status().to_string();
    ASSERT_EQ(actual->size(), expected->size()) << where;
    for (size_t i = 0; i < actual->size(); ++i) {
      expect_tensors_near((*actual)[i], (*expected)[i], rtol, atol,
                          where + " output " + std::to_string(i) + " threads " + std::to_string(threads));
    }
  }
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Tensor random_tensor(DType dtype, Shape shape, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = dist(rng);
    switch (dtype) {
      case DType::F32: t.data<float>()[i] = static_cast<float>(v); break;
      case DType::F64: t.data<double>()[i] = v; break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(std::floor(v)); break;
      case DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(std::floor(v)); break;
      // Through int32: a double outside the 8-bit range converts to int8 or
      // uint8 with undefined behaviour, an int32 wraps (as the values always
      // did on x86-64).
      case DType::I8:
        t.data<int8_t>()[i] = static_cast<int8_t>(static_cast<int32_t>(std::floor(v)));
        break;
      case DType::U8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(static_cast<int32_t>(std::floor(std::fabs(v))));
        break;
      case DType::Bool: t.data<bool>()[i] = v > (lo + hi) / 2; break;
      case DType::F16: t.data<uint16_t>()[i] = 0; break;
    }
  }
  return t;
}

}  // namespace mote::test
