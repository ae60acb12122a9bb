// What every front end shares once its importer has built a Graph: the
// options of a conversion, its result (the .mote bytes and what mote-convert
// reports), and finish_conversion(), the passes, optional int8 quantisation
// and the writer. The ONNX and TFLite converters both end there, so both
// give the same graph optimisations and the same report.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "converters/common/passes.hpp"
#include "converters/common/quantize_int8.hpp"
#include "mote/source_interface.hpp"

namespace mote::convert {

struct ImportOptions {
  // Replaces the declared shape of these inputs (--input-shape).
  std::map<std::string, Shape> input_shapes;
  // Called as work advances: stage ("initializers", "nodes"), done, total.
  std::function<void(const char* stage, size_t done, size_t total)> progress;
};

struct ConvertOptions {
  ImportOptions import;
  PipelineOptions passes;
  std::optional<QuantizeRequest> quantize;
};

struct ConvertResult {
  std::vector<uint8_t> mote;  // the .mote file
  // About the source: its format ("ONNX", "TFLite"), one line of facts
  // (versions, producer, counts), and its op types with how often each occurs.
  std::string format;
  std::string summary;
  std::map<std::string, int> source_ops;
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

// Runs the passes (and --quantize) on an imported graph and writes the .mote
// file into r.mote; `file` prefixes error messages.
Result<ConvertResult> finish_conversion(Graph& graph, ConvertResult r, const std::string& file,
                                        const ConvertOptions& options);

}  // namespace mote::convert
