// Gradient checks: the backward graph autodiff builds, run by a CPU session,
// against central finite differences of the same forward graph.
//
// The scalar checked is L = sum_i y_i * r_i for the op's output y and fixed
// random weights r (so every output element has a distinct, non-trivial
// gradient). L is accumulated in double on the host from the f32 outputs.
// The kernels compute in f32 (the reference kernels are f32-only too), so the
// step is large, eps = 1e-2: the f32 rounding of y (~6e-8 relative) divided by
// 2*eps stays near 1e-5, while the truncation error of central differences,
// O(eps^2 * y'''), stays near 1e-4 for the smooth ops tested. Tolerances of
// a few 1e-3 separate that from real errors, which are O(1). Inputs of ops
// with kinks (Relu, Abs, Clip, max) are kept at least 0.1 away from them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote::test {

struct GradCase {
  // Graph inputs with their values; float inputs are differentiated unless
  // named in `constant_inputs`.
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<std::string> constant_inputs;
  // Builds the forward graph from the input tensors; returns the output.
  std::function<int(TrainGraph& g, const std::vector<int>& inputs)> forward;
  double eps = 1e-2;
  double rtol = 1e-2;
  double atol = 2e-3;
};

// Runs the check with gtest expectations; `what` names the case in failures.
void check_gradients(const GradCase& c, const std::string& what);

// Uniform in [lo, hi) with |x| >= margin (sign kept), for ops with a kink at 0.
Tensor away_from_zero(Shape shape, uint32_t seed, double margin = 0.1, double hi = 1.0);

}  // namespace mote::test
