// Runs a test in a child process, so a crash or hang in one op's kernel is
// one failed test ("crashed: signal 11") instead of the end of the suite.
#pragma once

#include <functional>

#include "tests/conformance/run_test.hpp"

namespace mote::conformance {

// `fn` runs in a fork; its Outcome comes back through a pipe. A child killed
// by a signal, or still running after `timeout_s`, is a failure.
Outcome run_isolated(const std::function<Outcome()>& fn, int timeout_s);

}  // namespace mote::conformance
