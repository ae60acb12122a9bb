// Parsing of the argument forms the tools share: "NAME=VALUE" pairs and
// shapes written as "1x3x224x224".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::tools {

// "x=in.npy" -> {"x", "in.npy"}. Splits at the first '=' since tensor names
// never need one but file paths may contain one. `flag` names the option in
// errors ("--input").
Result<std::pair<std::string, std::string>> split_assignment(const std::string& arg, const std::string& flag);
// "1x3x224x224" -> {1, 3, 224, 224}; "" or "scalar" -> {} (rank 0).
Result<Shape> parse_shape(const std::string& text);
// Every "--shape NAME=DIMS" argument, by name; a name given twice is an error.
Result<std::map<std::string, Shape>> parse_shape_args(const std::vector<std::string>& args);

}  // namespace mote::tools
