#include "converters/tool/report.hpp"

#include <algorithm>
#include <vector>

namespace mote::convert {
namespace {

std::string human_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= (1 << 10)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

// "Conv 53, Relu 49, ..." most frequent first, wrapped.
void print_histogram(FILE* out, const char* title, const std::map<std::string, int>& h) {
  std::vector<std::pair<std::string, int>> items(h.begin(), h.end());
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  int total = 0;
  for (const auto& [_, n] : items) total += n;
  std::fprintf(out, "  %s (%d):\n   ", title, total);
  size_t col = 3;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = " " + items[i].first + " " + std::to_string(items[i].second) + (i + 1 < items.size() ? "," : "");
    if (col + item.size() > 100) {
      std::fprintf(out, "\n   ");
      col = 3;
    }
    std::fputs(item.c_str(), out);
    col += item.size();
  }
  std::fputc('\n', out);
}

}  // namespace

void print_progress(const char* stage, size_t done, size_t total) {
  std::fprintf(stderr, "mote-convert: %s %3zu%% (%zu/%zu)\n", stage, done * 100 / total, done, total);
}

// Which ops run in int8, each quantised output's error against the float
// graph on the calibration data, and the graph outputs' error.
void print_quantize_report(FILE* out, const QuantizeReport& q) {
  std::fprintf(out, "  int8: %zu ops quantised (calibration %.0f ms, measurement %.0f ms)\n", q.quantized.size(),
               q.calibrate_ms, q.measure_ms);
  for (const auto& [reason, n] : q.kept_float) std::fprintf(out, "    float: %-40s %lld\n", reason.c_str(), static_cast<long long>(n));
  if (!q.quantized.empty()) {
    std::fprintf(out, "    %-36s %10s %12s %12s %9s\n", "quantised output", "range", "max|error|", "rms error", "rms/range");
  }
  for (const QuantizedOutput& o : q.quantized) {
    std::fprintf(out, "    %-36s %10.4g %12.4g %12.4g %8.2f%%\n", o.tensor.c_str(), o.range, o.max_abs_error,
                 o.rms_error, o.range > 0 ? 100.0 * o.rms_error / o.range : 0.0);
  }
  for (const GraphOutputError& e : q.outputs) {
    std::fprintf(out, "    output %s: max|int8 - f32| %.4g (max|f32| %.4g)", e.name.c_str(), e.max_abs_error,
                 e.max_abs_float);
    if (e.samples > 0) {
      std::fprintf(out, "; arg-max agrees on %lld/%lld rows", static_cast<long long>(e.argmax_agree),
                   static_cast<long long>(e.samples));
    }
    std::fputc('\n', out);
  }
}

void print_report(FILE* out, const std::string& in_path, const std::string& out_path, const ConvertResult& r,
                  bool verbose, double total_ms) {
  std::fprintf(out, "mote-convert: %s -> %s\n", in_path.c_str(), out_path.c_str());
  std::fprintf(out, "  source: %s\n", r.summary.c_str());
  if (verbose) print_histogram(out, (r.format + " ops").c_str(), r.source_ops);
  print_histogram(out, "Mote ops as imported", r.ops_before);
  print_histogram(out, "Mote ops after passes", r.ops_after);
  std::fprintf(out, "  passes:\n");
  for (const auto& entry : r.log.entries()) {
    std::string line;
    for (const auto& [what, n] : entry.counters) {
      line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    }
    if (!line.empty()) std::fprintf(out, "    %-18s %s\n", entry.pass.c_str(), line.c_str());
    if (verbose) {
      for (const auto& note : entry.notes) std::fprintf(out, "      %s\n", note.c_str());
    }
  }
  if (r.quantize) print_quantize_report(out, *r.quantize);
  std::fprintf(out, "  weights: %s in %zu tensors; file %s\n", human_bytes(r.weight_bytes).c_str(), r.weight_tensors,
               human_bytes(r.mote.size()).c_str());
  std::fprintf(out, "  time: %.1f ms (read %.1f, import %.1f, passes %.1f, write %.1f)\n", total_ms, r.read_ms,
               r.import_ms, r.passes_ms, r.write_ms);
}

}  // namespace mote::convert
