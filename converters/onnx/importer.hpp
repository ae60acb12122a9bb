// The ONNX front end: ModelProto -> Graph, before any pass runs.
//
// Initializers become constants, graph inputs become inputs (an input that
// also has an initializer is a constant: its default value is folded in),
// each node goes to the mapper its op type registered (op_table.hpp). Every
// node no mapper can take, nested ones in If/Loop/Scan bodies included, is
// collected, and the import fails once with the full list.
//
// Names: graph inputs and outputs keep their ONNX names exactly, and so do
// intermediate tensors that survive the passes (Graph reserves the source's
// tensor names; helper values never take one).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "converters/common/conversion.hpp"
#include "converters/common/graph.hpp"
#include "mote/source_interface.hpp"
#include "mote/status.hpp"

namespace onnx {
class ModelProto;
}

namespace mote::convert {

struct OnnxImport {
  Graph graph;
  int64_t ir_version = 0;
  int opset = 0;
  std::string producer;  // producer_name and version of the ONNX file
  // ONNX op types of the source graph and how often each occurs.
  std::map<std::string, int> op_histogram;
  size_t node_count = 0;
  size_t initializer_count = 0;
  // The graph inputs (not initializers) and outputs as the file declares
  // them; also written to the metadata (mote/source_interface.hpp).
  SourceInterface source;
};

// `file` names the model in messages; `model_dir` is where external data
// files are looked up.
Result<OnnxImport> import_onnx(const onnx::ModelProto& model, const std::string& file, const std::string& model_dir,
                               const ImportOptions& options = {});
Result<OnnxImport> import_onnx_file(const std::string& path, const ImportOptions& options = {});

// The opsets of the default domain this importer is written against.
inline constexpr int kMinOnnxOpset = 1;
inline constexpr int kMaxOnnxOpset = 27;

}  // namespace mote::convert
