// What mote-run does with the outputs: a one-line summary each, and .npy
// files named after the outputs.
#pragma once

#include <string>
#include <vector>

#include "mote/tensor.hpp"

namespace mote::tools {

// A file name for each output: the tensor name with every character other
// than letters, digits, '.', '_' and '-' (notably '/' and ':', common in
// converted models) replaced by '_', then ".npy". Empty or dot-only names
// become "output_<i>"; names that collide after this get "_<i>" appended.
std::vector<std::string> output_file_names(const std::vector<std::string>& tensor_names);

// "[0, 0.5, 1, ...]": the first `max_values` values.
std::string describe_values(const Tensor& tensor, size_t max_values);

}  // namespace mote::tools
