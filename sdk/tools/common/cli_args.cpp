#include "sdk/tools/common/cli_args.hpp"

#include <limits>

namespace mote::tools {

Result<std::pair<std::string, std::string>> split_assignment(const std::string& arg, const std::string& flag) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
    return invalid_argument(flag + " '" + arg + "': expected NAME=VALUE");
  }
  return std::make_pair(arg.substr(0, eq), arg.substr(eq + 1));
}

Result<Shape> parse_shape(const std::string& text) {
  if (text.empty() || text == "scalar") return Shape{};
  Shape shape;
  int64_t dim = 0;
  bool have_digit = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : 'x';
    if (c == 'x' || c == 'X' || c == ',') {
      if (!have_digit) return invalid_argument("shape '" + text + "': expected dimensions like 1x3x224x224");
      shape.push_back(dim);
      dim = 0;
      have_digit = false;
    } else if (c >= '0' && c <= '9') {
      if (dim > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
        return invalid_argument("shape '" + text + "': dimension too large");
      }
      dim = dim * 10 + (c - '0');
      have_digit = true;
    } else {
      return invalid_argument("shape '" + text + "': unexpected '" + std::string(1, c) +
                              "' (expected dimensions like 1x3x224x224)");
    }
  }
  if (shape_numel(shape) < 0) return invalid_argument("shape '" + text + "' has too many elements");
  return shape;
}

Result<std::map<std::string, Shape>> parse_shape_args(const std::vector<std::string>& args) {
  std::map<std::string, Shape> shapes;
  for (const std::string& arg : args) {
    MOTE_ASSIGN_OR_RETURN(auto pair, split_assignment(arg, "--shape"));
    auto shape = parse_shape(pair.second);
    if (!shape.ok()) return shape.status().with_context("--shape " + pair.first);
    if (!shapes.emplace(pair.first, std::move(shape).value()).second) {
      return invalid_argument("--shape " + pair.first + " is given twice");
    }
  }
  return shapes;
}

}  // namespace mote::tools
