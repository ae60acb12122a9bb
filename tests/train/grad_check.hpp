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
// Step and tolerances: with eps = 1e-6 the truncation error of central
// differences, eps^2 / 6 * |L'''|, is ~1e-13 for the smooth ops tested
// (|L'''| of a few units), and the rounding error, ~1e-16 * |L| / eps, stays
// below ~1e-8 for the |L| of tens these cases have. atol = 1e-7 plus
// rtol = 1e-6 sits an order of magnitude above both, and many orders below
// the error of a wrong formula (a missing term, a wrong scale such as 1/n vs
// 1/(n-1), a constant rounded to f32 is ~3e-8 relative and only the last one
// slips through). Inputs of ops with kinks (Relu, Abs, Clip, max) are kept at
// least 0.1 away from them, far beyond eps.
//
// The CPU kernels training actually runs are f32-only; check_cpu_matches_reference
// compares their backward graph with the f64 reference one at f32 precision.
#pragma once

#include <functional>
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
  double eps = 1e-6;
  double rtol = 1e-6;
  double atol = 1e-7;
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
