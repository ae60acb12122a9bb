#include "converters/tool/check_shapes.hpp"

#include <algorithm>
#include <cctype>

namespace mote::convert {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_batch_symbol(const std::string& symbol) {
  std::string s = lower(symbol);
  return s == "n" || s == "b" || s == "bs" || s.find("batch") != std::string::npos;
}

// The integers in "[640, 640]", "640" or "(480, 640)".
std::vector<int64_t> integers_in(const std::string& text) {
  std::vector<int64_t> values;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = text.find_first_not_of("0123456789", i);
    std::string digits = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (digits.size() < 10) values.push_back(std::stoll(digits));
    i = end == std::string::npos ? text.size() : end;
  }
  return values;
}

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

const SourceInput* find_source(const SourceInterface& source, const std::string& name) {
  for (const SourceInput& in : source.inputs) {
    if (in.name == name) return &in;
  }
  return nullptr;
}

std::string dim_label(const std::string& input, size_t k, const SourceDim* dim) {
  std::string label = "input '" + input + "' dimension " + std::to_string(k);
  if (dim && !dim->symbol.empty()) label += " (" + dim->symbol + ")";
  return label;
}

// Exporter metadata that sizes image inputs: Ultralytics writes imgsz
// ("[640, 640]") and batch ("1") into every ONNX export.
struct MetadataHints {
  std::vector<int64_t> image_hw;
  int64_t batch = -1;
};

MetadataHints metadata_hints(const std::map<std::string, std::string>& metadata) {
  MetadataHints h;
  if (auto it = metadata.find("onnx.imgsz"); it != metadata.end()) {
    h.image_hw = integers_in(it->second);
    if (h.image_hw.size() == 1) h.image_hw.push_back(h.image_hw[0]);
    if (h.image_hw.size() != 2) h.image_hw.clear();
  }
  if (auto it = metadata.find("onnx.batch"); it != metadata.end()) {
    auto v = integers_in(it->second);
    if (v.size() == 1 && v[0] > 0) h.batch = v[0];
  }
  return h;
}

}  // namespace

Result<CheckShapes> choose_check_shapes(const std::vector<std::pair<std::string, Shape>>& declared,
                                        const CheckShapeSources& sources) {
  CheckShapes result;
  MetadataHints hints = metadata_hints(sources.metadata);
  // Symbols sized so far: by --dim, then by the input files.
  std::map<std::string, int64_t> symbols = sources.dim_sizes;
  std::map<std::string, std::string> symbol_origin;
  for (const auto& [symbol, size] : sources.dim_sizes)
    symbol_origin[symbol] = "--dim " + symbol + "=" + std::to_string(size);
  for (const auto& [name, shape] : sources.file_shapes) {
    const SourceInput* src = find_source(sources.source, name);
    for (size_t k = 0; src && k < src->dims.size() && k < shape.size(); ++k) {
      const std::string& symbol = src->dims[k].symbol;
      if (!symbol.empty() && !symbols.count(symbol)) {
        symbols[symbol] = shape[k];
        symbol_origin[symbol] = "the file given for input '" + name + "'";
      }
    }
  }

  std::vector<std::string> unsized;
  std::vector<std::string> unsized_symbols, unsized_inputs;
  for (const auto& [name, shape] : declared) {
    if (sources.file_shapes.count(name)) continue;
    const SourceInput* src = find_source(sources.source, name);
    Shape chosen = shape;
    for (size_t k = 0; k < chosen.size(); ++k) {
      if (chosen[k] >= 0) continue;
      const SourceDim* dim = src && k < src->dims.size() ? &src->dims[k] : nullptr;
      std::string symbol = dim ? dim->symbol : "";
      std::string label = dim_label(name, k, dim);
      int64_t size = -1;
      std::string why;
      if (!symbol.empty() && symbols.count(symbol)) {
        size = symbols[symbol];
        why = "as given by " + symbol_origin[symbol];
      } else if (chosen.size() == 4 && (k == 2 || k == 3) && !hints.image_hw.empty()) {
        size = hints.image_hw[k - 2];
        why = "the exporter's imgsz metadata";
      } else if (k == 0 && hints.batch > 0 && (chosen.size() == 4 || (dim && is_batch_symbol(symbol)))) {
        size = hints.batch;
        why = "the exporter's batch metadata";
      } else if (k == 0 && dim && (dim->denotation == "DATA_BATCH" || is_batch_symbol(symbol))) {
        size = 1;
        why = "a batch dimension";
      }
      if (size < 0) {
        unsized.push_back(label);
        add_once(unsized_symbols, symbol);
        add_once(unsized_inputs, name);
        continue;
      }
      chosen[k] = size;
      if (!symbol.empty() && !symbols.count(symbol)) {
        symbols[symbol] = size;
        symbol_origin[symbol] = "the choice for " + label;
      }
      result.notes.push_back(label + " = " + std::to_string(size) + ": " + why);
    }
    result.shapes[name] = chosen;
  }
  if (!unsized.empty()) {
    std::string list;
    for (size_t i = 0; i < unsized.size(); ++i) list += (i ? ", " : "") + unsized[i];
    // Spell out the flags with this model's own names.
    std::string dims, shapes, files;
    for (const std::string& symbol : unsized_symbols) dims += " --dim " + symbol + "=SIZE";
    for (const std::string& name : unsized_inputs) {
      shapes += " --input-shape " + name + ":DIMS";
      files += " --inputs " + name + "=FILE.npy";
    }
    std::string how = "size them for the check with" + (dims.empty() ? std::string(" --dim SYMBOL=SIZE") : dims) +
                      ", give them real data with" + files + ", or fix the model's shape with" + shapes;
    return invalid_argument("--check cannot size " + list +
                            ": the model declares " + (unsized.size() == 1 ? "it" : "them") +
                            " dynamic and nothing in it fixes the size; " + how);
  }
  return result;
}

}  // namespace mote::convert
