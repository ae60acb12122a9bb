// Gradient checks: the backward graph autodiff builds, run on the reference
// backend in f64, against central finite differences of the same forward
// graph, also in f64.
//
// The scalar checked is L = sum_i y_i * r_i for the op's output y and fixed
// random weights r (so every output element has a distinct, non-trivial
// gradient). The case's inputs are given in f32 (what the layers train in)
// and widened to f64; the graph is built with TrainGraph::float_dtype() f64,
// so every constant a gradient builder adds is f64 too, and the reference
// kernels compute and store in double.
//
// Step and tolerances: central differences err by eps^2 / 6 * |L'''| from
// truncation and by ~1e-16 * |L| / eps from rounding L (|L| is tens here);
// eps = 1e-5 balances the two in double. The largest |analytic - FD| over
// every case of grad_ops_test and grad_layers_test is ~1e-9 (Div, whose
// third derivative is large for divisors near 0.5; Conv, with the largest
// |L|, ~3e-10). atol = 1e-8 plus rtol = 1e-6 leaves a 10x margin over that,
// and a gradient off by a relative 1e-5 (a scale of (1 + 1e-5) / n in place
// of 1 / n, say) already fails. Inputs of ops with kinks (Relu, Abs, Clip,
// max) are kept at least 0.1 away from them, far beyond eps.
//
// The CPU kernels training actually runs are f32-only; check_cpu_matches_reference
// compares their backward graph with the f64 reference one at f32 precision.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/train/train_graph.hpp"

namespace mote::test {

struct GradCase {
  // Graph inputs with their values (f32; check_gradients widens them to
  // f64); float inputs are differentiated unless named in `constant_inputs`.
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<std::string> constant_inputs;
  // Builds the forward graph from the input tensors; returns the output.
  std::function<int(TrainGraph& g, const std::vector<int>& inputs)> forward;
  double eps = 1e-5;
  double rtol = 1e-6;
  double atol = 1e-8;
  // When set, the forward output must also match this tensor (an
  // independent implementation's result, such as the op's reference kernel
  // on the same f32 inputs) within |y - want| <= y_tol * (1 + |want|): finite
  // differences check the gradients of the graph built, this checks that
  // the graph computes the op (a rewritten form, like an unrolled LSTM).
  std::optional<Tensor> expected_y;
  double y_tol = 1e-5;
};

// Runs the check with gtest expectations; `what` names the case in failures.
void check_gradients(const GradCase& c, const std::string& what);

// The case's backward graph built in f32 and run by the CPU backend against
// the same graph built in f64 and run by the reference backend: every
// gradient within f32 accuracy (rtol 1e-4, atol 1e-5).
void check_cpu_matches_reference(const GradCase& c, const std::string& what);

// Uniform in [lo, hi) with |x| >= margin (sign kept), for ops with a kink at 0.
Tensor away_from_zero(Shape shape, uint32_t seed, double margin = 0.1, double hi = 1.0);

}  // namespace mote::test
