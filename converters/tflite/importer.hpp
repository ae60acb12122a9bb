// The TFLite front end: a .tflite file's bytes -> Graph, before any pass.
//
// The file is verified as a FlatBuffer against converters/tflite/tflite.fbs
// first, so a damaged file is an error, never a crash. The main subgraph's
// inputs keep their NHWC shapes and names, constants become Mote constants
// (permuted or dequantised where an op needs it), and each operator goes to
// the mapper its builtin code registered (op_table.hpp). Every operator no
// mapper takes is collected and the import fails once with the full list.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "converters/common/conversion.hpp"
#include "converters/common/graph.hpp"

namespace mote::convert {

struct TfliteImport {
  Graph graph;
  std::string summary;                       // version, description, counts
  std::map<std::string, int> op_histogram;   // builtin operator names
  SourceInterface source;
};

// True when `bytes` start like a TFLite file (identifier "TFL3").
bool looks_like_tflite(const std::vector<uint8_t>& bytes);

// `file` names the model in messages.
Result<TfliteImport> import_tflite(const std::vector<uint8_t>& bytes, const std::string& file,
                                   const ImportOptions& options = {});

}  // namespace mote::convert
