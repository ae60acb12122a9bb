#include "converters/onnx/unsupported_list.hpp"

#include <algorithm>

namespace mote::convert {

void UnsupportedList::add(const std::string& op_type, const std::string& label, const std::string& reason) {
  auto& lines = by_type_[op_type];
  if (lines.empty()) type_order_.push_back(op_type);
  lines.push_back(label + ": " + reason);
  ++count_;
}

std::string UnsupportedList::message(const std::string& file) const {
  std::vector<std::string> types = type_order_;
  std::stable_sort(types.begin(), types.end(), [&](const std::string& a, const std::string& b) {
    return by_type_.at(a).size() > by_type_.at(b).size();
  });
  auto plural = [](size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  std::string msg = file + ": " + plural(count_, "unsupported node") + " of " + plural(types.size(), "op type") + ":";
  for (const std::string& type : types) {
    const auto& lines = by_type_.at(type);
    msg += "\n  " + type + " (" + plural(lines.size(), "node") + "):";
    for (const std::string& line : lines) msg += "\n    " + line;
  }
  return msg;
}

}  // namespace mote::convert
