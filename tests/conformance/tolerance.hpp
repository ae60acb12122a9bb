// How close Mote's outputs must be to the stored ones: |got - want| <=
// atol + rtol * |want| per element (NaN must match NaN, infinities must be
// equal; integers and bools exactly equal). The defaults hold for every test
// except the few listed in tolerance.cpp, each with the reason it needs more.
#pragma once

#include <string>

#include "mote/tensor.hpp"
#include "tests/conformance/test_case.hpp"

namespace mote::conformance {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-5;
  const char* reason = nullptr;  // why a test needs more than the defaults
};

Tolerance tolerance_for(const TestCase& test, double rtol, double atol);

// Empty when `got` matches `want`; otherwise the first mismatch.
std::string compare_tensors(const Tensor& got, const Tensor& want, const Tolerance& tol);

}  // namespace mote::conformance
