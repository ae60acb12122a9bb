// mote-conformance: runs ONNX backend node tests through mote-convert's
// converter and a Mote backend.
//
//   mote-conformance --suite DIR --ops-json v1.22-core-op-tests.json [--use-list]
//                    [--backend cpu|vulkan|reference] [--filter TEXT] [--floors FILE --floor-key KEY]
//
// Prints one line per failing test with the reason, a per-op table (a test
// counts for every op type in its graph), and closes with
// "N passed, N failed, N skipped". With a floor, exits non-zero when fewer
// tests pass than the floor recorded in the repository (floors.txt), so CTest
// catches regressions while known failures are worked on.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/conformance/isolate.hpp"
#include "tests/conformance/run_test.hpp"
#include "tests/conformance/selection.hpp"
#include "tests/conformance/test_case.hpp"

namespace {

using namespace mote;
using namespace mote::conformance;

struct OpCounts {
  int passed = 0, failed = 0;
};

// The floor for `key` in a file of "key count" lines ('#' starts a comment).
Result<int> read_floor(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  if (!in) return io_error(path + ": cannot open");
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string k;
    int n;
    if (words >> k >> n && k == key) return n;
  }
  return not_found(path + ": no floor for '" + key + "'");
}

void print_op_table(FILE* out, const std::map<std::string, OpCounts>& ops, bool markdown) {
  if (markdown) {
    std::fprintf(out, "| op | tests | passed | failed |\n|---|---:|---:|---:|\n");
  } else {
    std::fprintf(out, "%-24s %6s %6s %6s\n", "op", "tests", "passed", "failed");
  }
  for (const auto& [op, c] : ops) {
    if (markdown) {
      std::fprintf(out, "| %s | %d | %d | %d |\n", op.c_str(), c.passed + c.failed, c.passed, c.failed);
    } else {
      std::fprintf(out, "%-24s %6d %6d %6d\n", op.c_str(), c.passed + c.failed, c.passed, c.failed);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs ONNX backend node tests: convert with mote-convert's converter, run on a Mote backend, compare."};
  std::string suite, ops_json, backend_name = "cpu", filter, floors, floor_key, markdown;
  bool use_list = false, no_fork = false, quiet = false;
  double rtol = 1e-3, atol = 1e-5;
  int timeout_s = 120;
  app.add_option("--suite", suite, "directory of test_* folders (onnx/backend/test/data/node)")->required();
  app.add_option("--ops-json", ops_json, "the suite description with core_ops and converter_only_ops")->required();
  app.add_flag("--use-list", use_list, "run only the tests the JSON lists (else: every test the op rule selects)");
  app.add_option("--backend", backend_name, "cpu (default), vulkan or reference");
  app.add_option("--filter", filter, "run only tests whose name contains this text");
  app.add_option("--rtol", rtol, "relative tolerance (default 1e-3)");
  app.add_option("--atol", atol, "absolute tolerance (default 1e-5)");
  app.add_option("--floors", floors, "file of 'key passes' lines: fail when fewer tests pass");
  app.add_option("--floor-key", floor_key, "the line of --floors to check");
  app.add_option("--markdown", markdown, "also write the per-op table and counts as Markdown to this file");
  app.add_option("--timeout", timeout_s, "seconds per test before it counts as hung (default 120)");
  app.add_flag("--no-fork", no_fork, "run tests in-process (for debugging; a crash ends the run)");
  app.add_flag("-q,--quiet", quiet, "leave out the per-op table");
  CLI11_PARSE(app, argc, argv);

  auto backend = parse_backend(backend_name);
  auto selection = read_selection(ops_json, use_list);
  for (const Status& st : {backend.status(), selection.status()}) {
    if (!st.ok()) {
      std::fprintf(stderr, "mote-conformance: %s\n", st.message().c_str());
      return 2;
    }
  }
  int floor = -1;
  if (!floors.empty()) {
    auto f = read_floor(floors, floor_key);
    if (!f.ok()) {
      std::fprintf(stderr, "mote-conformance: %s\n", f.status().message().c_str());
      return 2;
    }
    floor = *f;
  }

  std::vector<std::string> names = list_tests(suite);
  if (names.empty()) {
    std::fprintf(stderr, "mote-conformance: no tests under '%s'\n", suite.c_str());
    return 2;
  }
  int passed = 0, failed = 0, skipped = 0, passed_on_gpu = 0;
  std::map<std::string, OpCounts> per_op;
  for (const std::string& name : names) {
    if (!filter.empty() && name.find(filter) == std::string::npos) {
      ++skipped;
      continue;
    }
    auto test = load_test(suite, name);
    if (!test.ok()) {
      // An unreadable model is a failure only when the test was meant to run.
      if (selection->listed && !selection->listed->count(name)) {
        ++skipped;
      } else {
        ++failed;
        std::printf("FAIL %s: %s\n", name.c_str(), test.status().message().c_str());
      }
      continue;
    }
    if (!skip_reason(*selection, *test).empty()) {
      ++skipped;
      continue;
    }
    Tolerance tol = tolerance_for(*test, rtol, atol);
    auto body = [&] { return run_test(*test, *backend, tol); };
    Outcome o = no_fork ? body() : run_isolated(body, timeout_s);
    for (const std::string& op : test->op_types) (o.passed ? per_op[op].passed : per_op[op].failed)++;
    if (o.passed) {
      ++passed;
      if (o.used_gpu) ++passed_on_gpu;
      if (*backend == Backend::kVulkan && !o.used_gpu && !quiet) std::printf("CPU  %s: %s\n", name.c_str(), o.reason.c_str());
    } else {
      ++failed;
      // One line per failure: newlines in multi-line reasons are folded.
      for (char& c : o.reason) c = c == '\n' ? ' ' : c;
      std::printf("FAIL %s: %s\n", name.c_str(), o.reason.c_str());
    }
    std::fflush(stdout);
  }

  if (!quiet) {
    std::printf("\n");
    print_op_table(stdout, per_op, false);
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (*backend == Backend::kVulkan) std::printf("%d of the passing tests ran at least one op on the GPU\n", passed_on_gpu);
  if (!markdown.empty()) {
    if (FILE* md = std::fopen(markdown.c_str(), "w")) {
      print_op_table(md, per_op, true);
      std::fprintf(md, "\n%d passed, %d failed, %d skipped\n", passed, failed, skipped);
      std::fclose(md);
    }
  }
  if (floor >= 0 && passed < floor) {
    std::printf("mote-conformance: %d passed is below the floor of %d ('%s' in %s)\n", passed, floor,
                floor_key.c_str(), floors.c_str());
    return 1;
  }
  return 0;
}
