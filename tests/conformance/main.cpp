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
#include <set>
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

// One test's result, from its name: skipped (the selection leaves it out),
// or its outcome and the op types it counts for.
struct Verdict {
  bool skipped = false;
  Outcome outcome;
  std::set<std::string> op_types;
};

Verdict skipped_test() {
  Verdict v;
  v.skipped = true;
  return v;
}

Verdict failed_test(std::string why, std::set<std::string> op_types = {}) {
  Verdict v;
  v.outcome.reason = std::move(why);
  v.op_types = std::move(op_types);
  return v;
}

Verdict judge(const std::string& suite, const std::string& name, const Selection& selection, Backend backend,
              double rtol, double atol) {
  auto test = load_test(suite, name);
  if (!test.ok()) {
    // An unreadable model is a failure only when the test was meant to run.
    if (selection.listed && !selection.listed->count(name)) return skipped_test();
    return failed_test(test.status().message());
  }
  if (!skip_reason(selection, *test).empty()) return skipped_test();
  Verdict v;
  v.outcome = run_test(*test, backend, tolerance_for(*test, rtol, atol));
  v.op_types = test->op_types;
  return v;
}

// A Verdict through the worker's pipe: a kind letter (S skipped, P passed,
// G passed with GPU ops, F failed), the op types separated by spaces, a
// newline, the reason.
std::string encode(const Verdict& v) {
  std::string text(1, v.skipped ? 'S' : !v.outcome.passed ? 'F' : v.outcome.used_gpu ? 'G' : 'P');
  for (const std::string& op : v.op_types) text += (text.size() > 1 ? " " : "") + op;
  return text + "\n" + v.outcome.reason;
}

Verdict decode(const std::string& text) {
  Verdict v;
  v.skipped = text[0] == 'S';
  v.outcome.passed = text[0] == 'P' || text[0] == 'G';
  v.outcome.used_gpu = text[0] == 'G';
  const size_t line_end = text.find('\n');
  std::istringstream ops(text.substr(1, line_end - 1));
  for (std::string op; ops >> op;) v.op_types.insert(op);
  v.outcome.reason = text.substr(line_end + 1);
  return v;
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
  std::vector<std::string> selected;
  for (const std::string& name : names) {
    if (filter.empty() || name.find(filter) != std::string::npos) {
      selected.push_back(name);
    } else {
      ++skipped;
    }
  }
  const auto judge_test = [&](size_t i) { return judge(suite, selected[i], *selection, *backend, rtol, atol); };
  std::map<std::string, OpCounts> per_op;
  const auto count = [&](size_t i, const Verdict& v) {
    const std::string& name = selected[i];
    if (v.skipped) {
      ++skipped;
      return;
    }
    for (const std::string& op : v.op_types) (v.outcome.passed ? per_op[op].passed : per_op[op].failed)++;
    if (v.outcome.passed) {
      ++passed;
      if (v.outcome.used_gpu) ++passed_on_gpu;
      if (*backend == Backend::kVulkan && !v.outcome.used_gpu && !quiet) {
        std::printf("CPU  %s: %s\n", name.c_str(), v.outcome.reason.c_str());
      }
    } else {
      ++failed;
      // One line per failure: newlines in multi-line reasons are folded.
      std::string reason = v.outcome.reason;
      for (char& c : reason) c = c == '\n' ? ' ' : c;
      std::printf("FAIL %s: %s\n", name.c_str(), reason.c_str());
    }
    std::fflush(stdout);
  };
  if (no_fork) {
    for (size_t i = 0; i < selected.size(); ++i) count(i, judge_test(i));
  } else {
    run_in_workers(
        selected.size(),
        [&](size_t i) {
          const Verdict v = judge_test(i);
          return JobOutput{encode(v), v.outcome.gpu_fault};
        },
        timeout_s,
        [&](size_t i, const JobResult& r) {
          // A test its worker died in counts for no op type in the table:
          // reading its model again here could take this process down too.
          count(i, r.completed ? decode(r.text) : failed_test(r.text));
        });
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
