#include "converters/onnx/onnx_converter.hpp"

#include <chrono>
#include <filesystem>

#include "converters/common/mote_writer.hpp"
#include "converters/onnx/onnx_file.hpp"
#include "onnx.pb.h"
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

// Passes and writing, once the source model is no longer needed.
Result<ConvertResult> finish(ConvertResult r, OnnxImport imported, const std::string& file,
                             const ConvertOptions& options) {
  r.ir_version = imported.ir_version;
  r.opset = imported.opset;
  r.producer = imported.producer;
  r.node_count = imported.node_count;
  r.initializer_count = imported.initializer_count;
  r.onnx_ops = imported.op_histogram;
  r.source = imported.source;
  Graph& graph = imported.graph;
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

}  // namespace

Result<ConvertResult> convert_onnx(const onnx::ModelProto& model, const std::string& file,
                                   const std::string& model_dir, const ConvertOptions& options) {
  ConvertResult r;
  auto start = Clock::now();
  MOTE_ASSIGN_OR_RETURN(OnnxImport imported, import_onnx(model, file, model_dir, options.import));
  r.import_ms = ms_since(start);
  return finish(std::move(r), std::move(imported), file, options);
}

Result<ConvertResult> convert_onnx_file(const std::string& path, const ConvertOptions& options) {
  ConvertResult r;
  auto start = Clock::now();
  MOTE_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model, read_onnx_file(path));
  r.read_ms = ms_since(start);
  std::string dir = std::filesystem::path(path).parent_path().string();
  start = Clock::now();
  MOTE_ASSIGN_OR_RETURN(OnnxImport imported, import_onnx(*model, path, dir.empty() ? "." : dir, options.import));
  r.import_ms = ms_since(start);
  // The weights now live in the graph: free the protobuf copy before the
  // passes and the writer make their own.
  model.reset();
  return finish(std::move(r), std::move(imported), path, options);
}

}  // namespace mote::convert
