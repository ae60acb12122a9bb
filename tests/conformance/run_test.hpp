// Converts one test's model in memory (the same path mote-convert takes),
// runs every data set on a Mote backend and compares the outputs.
#pragma once

#include <string>

#include "mote/session.hpp"
#include "tests/conformance/test_case.hpp"
#include "tests/conformance/tolerance.hpp"

namespace mote::conformance {

struct Outcome {
  bool passed = false;
  // Why it failed: "convert: ...", "run: ...", "output 0 'y': ...". For a
  // pass on the Vulkan backend with no op on the GPU: where its ops went.
  std::string reason;
  // At least one op ran on the GPU (with --backend vulkan).
  bool used_gpu = false;
  // The GPU faulted (kGpuFault): a lost device stays lost for the process,
  // whose later tests would run on the CPU, so they need a fresh one.
  bool gpu_fault = false;
};

Outcome run_test(const TestCase& test, Backend backend, const Tolerance& tolerance);

}  // namespace mote::conformance
