// ONNX -> .mote in one call: import, passes, write. mote-convert and the
// conformance runner both convert through here, so they test the same path.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "converters/common/passes.hpp"
#include "converters/common/quantize_int8.hpp"
#include "converters/onnx/importer.hpp"

namespace mote::convert {

struct ConvertOptions {
  ImportOptions import;
  PipelineOptions passes;
  std::optional<QuantizeRequest> quantize;
};

struct ConvertResult {
  std::vector<uint8_t> mote;  // the .mote file
  // About the source.
  int64_t ir_version = 0;
  int opset = 0;
  std::string producer;
  size_t node_count = 0;
  size_t initializer_count = 0;
  std::map<std::string, int> onnx_ops;
  SourceInterface source;
  // Mote op histograms as imported and after the passes.
  std::map<std::string, int> ops_before;
  std::map<std::string, int> ops_after;
  PassLog log;
  std::optional<QuantizeReport> quantize;
  uint64_t weight_bytes = 0;
  size_t weight_tensors = 0;
  double read_ms = 0, import_ms = 0, passes_ms = 0, write_ms = 0;
};

Result<ConvertResult> convert_onnx(const onnx::ModelProto& model, const std::string& file,
                                   const std::string& model_dir, const ConvertOptions& options);
Result<ConvertResult> convert_onnx_file(const std::string& path, const ConvertOptions& options);

}  // namespace mote::convert
