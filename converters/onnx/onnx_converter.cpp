#include "converters/onnx/onnx_converter.hpp"

#include <chrono>
#include <filesystem>

#include "converters/onnx/onnx_file.hpp"
#include "onnx.pb.h"

namespace mote::convert {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Passes and writing, once the source model is no longer needed.
Result<ConvertResult> finish(ConvertResult r, OnnxImport imported, const std::string& file,
                             const ConvertOptions& options) {
  r.format = "ONNX";
  r.summary = "ONNX IR " + std::to_string(imported.ir_version) + ", opset " + std::to_string(imported.opset) +
              (imported.producer.empty() ? "" : ", producer " + imported.producer) + "; " +
              std::to_string(imported.node_count) + " nodes, " + std::to_string(imported.initializer_count) +
              " initializers";
  r.source_ops = std::move(imported.op_histogram);
  r.source = imported.source;
  return finish_conversion(imported.graph, std::move(r), file, options);
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
