// mote-convert --check: the shapes of the inputs it makes up. A dynamic
// dimension is sized from what the user or the model says about it, never
// guessed: a window or a reshape that a made-up size breaks would report a
// failure of a correct conversion.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mote/source_interface.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

struct CheckShapeSources {
  // The source model's inputs with their symbolic dimensions.
  SourceInterface source;
  // --dim SYMBOL=SIZE.
  std::map<std::string, int64_t> dim_sizes;
  // The model's metadata (ONNX metadata_props arrive as "onnx.<key>").
  std::map<std::string, std::string> metadata;
  // Inputs read from files (--inputs): their symbols take the file's sizes.
  std::map<std::string, Shape> file_shapes;
};

struct CheckShapes {
  std::map<std::string, Shape> shapes;  // every input not read from a file
  std::vector<std::string> notes;       // "input 'x' dimension 0 (N) = 1: a batch dimension"
};

// `declared` holds each input's shape in the .mote model (-1 = dynamic).
// Each dynamic dimension is sized, in this order, by --dim for its symbol,
// by an input file or an earlier choice that sized the same symbol, by
// exporter metadata (Ultralytics' imgsz/batch), or as 1 when it is a batch
// dimension (ONNX denotation DATA_BATCH, or a symbol such as N, batch,
// batch_size). Anything else is an error that names every such dimension
// and says how to size it.
Result<CheckShapes> choose_check_shapes(const std::vector<std::pair<std::string, Shape>>& declared,
                                        const CheckShapeSources& sources);

}  // namespace mote::convert
