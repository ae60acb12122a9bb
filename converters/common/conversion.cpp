#include "converters/common/conversion.hpp"

#include <chrono>

#include "converters/common/mote_writer.hpp"
#include "runtime/core/registry.hpp"

namespace mote::convert {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::map<std::string, int> op_histogram(const Graph& graph) {
  std::map<std::string, int> h;
  for (const auto& op : graph.ops) {
    if (op) ++h[op_type_name(op->type)];
  }
  return h;
}

}  // namespace

Result<ConvertResult> finish_conversion(Graph& graph, ConvertResult r, const std::string& file,
                                        const ConvertOptions& options) {
  r.ops_before = op_histogram(graph);
  auto start = Clock::now();
  Status st = run_passes(graph, options.passes, r.log);
  if (!st.ok()) return st.with_context(file);
  if (options.quantize) {
    auto report = quantize_graph(graph, *options.quantize, r.log);
    if (!report.ok()) return report.status().with_context(file);
    r.quantize = std::move(report).value();
  }
  r.passes_ms = ms_since(start);
  r.ops_after = op_histogram(graph);
  for (const Value& v : graph.values) {
    if (!v.is_constant()) continue;
    r.weight_bytes += v.data->bytes();
    ++r.weight_tensors;
  }

  start = Clock::now();
  auto bytes = write_mote(graph);
  if (!bytes.ok()) return bytes.status().with_context(file);
  r.mote = std::move(bytes).value();
  r.write_ms = ms_since(start);
  return r;
}

}  // namespace mote::convert
