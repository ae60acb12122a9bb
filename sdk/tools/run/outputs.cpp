#include "sdk/tools/run/outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace mote::tools {

std::vector<std::string> output_file_names(const std::vector<std::string>& tensor_names) {
  std::vector<std::string> files;
  std::set<std::string> used;
  for (size_t i = 0; i < tensor_names.size(); ++i) {
    std::string stem = tensor_names[i];
    for (char& c : stem) {
      bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-';
      if (!safe) c = '_';
    }
    // A leading '.' would hide the file (or make "." / ".."), so replace it.
    if (!stem.empty() && stem[0] == '.') stem[0] = '_';
    if (stem.find_first_not_of('_') == std::string::npos) stem = "output_" + std::to_string(i);
    std::string name = stem + ".npy";
    if (used.count(name)) name = stem + "_" + std::to_string(i) + ".npy";
    used.insert(name);
    files.push_back(name);
  }
  return files;
}

std::string describe_values(const Tensor& tensor, size_t max_values) {
  std::string out = "[";
  auto total = static_cast<size_t>(tensor.numel());
  size_t shown = std::min(total, max_values);
  // Converts only the values shown, not a possibly huge output.
  std::vector<double> values = Tensor::borrow(tensor.dtype(), {static_cast<int64_t>(shown)}, tensor.raw()).to_doubles();
  for (size_t i = 0; i < shown; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", values[i]);
    out += (i ? ", " : "") + std::string(buf);
  }
  if (total > shown) out += shown ? ", ..." : "...";
  return out + "]";
}

}  // namespace mote::tools
