// Which tests run. The suite description (shared/conformance/
// v1.22-core-op-tests.json) names Mote's core op set, the ops only the
// converter sees (Constant, Dropout, Upsample, Sum, CastLike), and the node
// tests of onnx 1.22 that use nothing else. The same rule selects tests of
// other suites (onnx 1.12 in Debian's libonnx-testdata): every node's op is
// core or converter-only, every graph input and output is f32, i32, i64 or
// bool. A test not selected is counted as skipped.
//
// A description without core_ops (v1.22-typed-tests.json: the 1,399 tests
// whose graph inputs and outputs are plain numeric tensors, any op) selects
// by its list alone: an op Mote lacks is then a failure, not a skip.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "mote/status.hpp"
#include "tests/conformance/test_case.hpp"

namespace mote::conformance {

struct Selection {
  // Empty in a list-only description: any op and any type may run.
  std::optional<std::set<std::string>> core_ops;
  std::set<std::string> converter_only_ops;
  // When set, only these tests run (the suite's own list).
  std::optional<std::set<std::string>> listed;
};

// Reads core_ops, converter_only_ops and (when `use_list`) tests; a
// description without core_ops must be used with its list.
Result<Selection> read_selection(const std::string& json_path, bool use_list);

// Empty when the test runs; otherwise why it is skipped.
std::string skip_reason(const Selection& selection, const TestCase& test);

}  // namespace mote::conformance
