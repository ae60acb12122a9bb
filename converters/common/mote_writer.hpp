// Writes a converted Graph as a .mote model through GraphBuilder, the one
// writer of the file format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "converters/common/graph.hpp"
#include "mote/status.hpp"

namespace mote::convert {

// The complete .mote file. Fails when an op refers to a value that is not
// available yet (the graph is not in execution order).
Result<std::vector<uint8_t>> write_mote(const Graph& graph);

// Writes `bytes` to `path` atomically: a temporary file beside it, then a
// rename, so a failed conversion never leaves half a model behind.
Status save_file(const std::string& path, const std::vector<uint8_t>& bytes);
// The whole file, for a front end that reads its model into memory (TFLite);
// the error names the path and the system's reason.
Result<std::vector<uint8_t>> load_file(const std::string& path);

}  // namespace mote::convert
