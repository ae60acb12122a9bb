// A .mote file read back into the converter's Graph, so that a model made on
// the device (fine-tuned and saved by a TrainingSession) can go through
// passes that need the converter, such as --quantize int8.
#pragma once

#include <string>

#include "converters/common/graph.hpp"
#include "mote/status.hpp"

namespace mote::convert {

// Loads and verifies `path` (the runtime's loader), then copies its tensors,
// weights, ops, metadata and producer. Models with control flow are refused.
Result<Graph> read_mote_graph(const std::string& path);

}  // namespace mote::convert
