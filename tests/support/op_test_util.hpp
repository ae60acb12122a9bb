// Helpers for op tests: build a one-op node, run it through an op's shape
// function and a chosen kernel (reference or optimised CPU), and compare
// tensors with a tolerance.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/core/registry.hpp"

namespace mote::test {

enum class Impl { kReference, kCpu };

inline const char* impl_name(Impl impl) { return impl == Impl::kReference ? "reference" : "cpu"; }

// A node of type `type` whose inputs are 0..n-1 and outputs n.. (indices only
// matter to the session, not to kernels).
fb::OpT make_op(fb::OpType type, const std::string& name = "test_op");
template <class Attrs>
fb::OpT make_op(fb::OpType type, Attrs a) {
  fb::OpT op = make_op(type);
  set_attrs(op, std::move(a));
  return op;
}

// Omitted optional inputs are std::nullopt. Every input is visible to shape
// inference as a known value, as constants are in a session.
using Inputs = std::vector<std::optional<Tensor>>;

// Infers output shapes, allocates the outputs, runs prepare (if any) then the
// kernel of `impl` with `threads` threads. With `prepare_inputs`, prepare sees
// those instead (a model prepared for one input size and run at another).
Result<std::vector<Tensor>> run_op(const fb::OpT& op, const Inputs& inputs, Impl impl, int threads = 1,
                                   const Inputs* prepare_inputs = nullptr);

// Runs with both implementations and expects matching outputs (same dtypes and
// shapes; values within |a-b| <= atol + rtol*|b|). Threads: cpu runs with 1 and 2.
void expect_cpu_matches_reference(const fb::OpT& op, const Inputs& inputs, double rtol = 1e-5,
                                  double atol = 1e-6);

// Same dtype, shape and values within tolerance; NaNs must match NaNs.
void expect_tensors_near(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                         const std::string& what = "");

// Uniform random values in [lo, hi); integer and bool dtypes are rounded.
Tensor random_tensor(DType dtype, Shape shape, uint32_t seed, double lo = -1.0, double hi = 1.0);

// n floats uniform in [-1, 1) (drawn as floats: not random_tensor's values).
std::vector<float> random_floats(size_t n, uint32_t seed);

// The odd sizes op tests sweep: 1, 13, 127 and friends.
inline const std::vector<int64_t>& odd_sizes() {
  static const std::vector<int64_t> sizes = {1, 3, 13, 127};
  return sizes;
}

}  // namespace mote::test
