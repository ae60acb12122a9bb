// The interface of the model a .mote file was converted from: its graph
// inputs (with the declared dimensions, symbolic ones by name) and outputs,
// as the converter found them. mote-convert stores it in the model's
// metadata so that tools can show a user the names they exported with, and
// prove that none changed on the way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mote/export.hpp"

namespace mote {

class Model;

struct SourceDim {
  int64_t value = -1;      // the declared size; -1 when dynamic
  std::string symbol;      // a dynamic dimension's name ("N", "batch"), if any
  std::string denotation;  // ONNX's DATA_BATCH, DATA_CHANNEL...; not stored in the file
};

struct SourceInput {
  std::string name;
  bool has_shape = false;
  std::vector<SourceDim> dims;
};

struct SourceInterface {
  std::vector<SourceInput> inputs;
  std::vector<std::string> outputs;
};

// Metadata keys: one line per tensor, "NAME\tDIMS" for inputs (DIMS like
// "N,3,224,224", "?" for an unnamed dynamic dimension, "*" for no declared
// shape) and "NAME" for outputs; '%', ',', '\t' and '\n' in names are
// %-escaped.
inline constexpr const char* kSourceInputsKey = "source.inputs";
inline constexpr const char* kSourceOutputsKey = "source.outputs";

MOTE_API std::string encode_source_inputs(const std::vector<SourceInput>& inputs);
MOTE_API std::string encode_source_outputs(const std::vector<std::string>& outputs);
// From a model's metadata; nullopt when it has none (a model not converted,
// or converted before the metadata existed).
MOTE_API std::optional<SourceInterface> source_interface(const Model& model);

// "[N, 3, 224, 224]"; "?" for an unnamed dynamic dimension.
MOTE_API std::string source_dims_to_string(const SourceInput& input);

}  // namespace mote
