#include "mote/source_interface.hpp"

#include "mote/model.hpp"

namespace mote {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%' || c == ',' || c == '\t' || c == '\n') {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
      out += hex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Metadata may come from any file: a malformed escape stays as it is.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int hi = i + 2 < s.size() && s[i] == '%' ? hex_digit(s[i + 1]) : -1;
    int lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
    if (lo >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    size_t next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  return parts;
}

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

std::string encode_source_inputs(const std::vector<SourceInput>& inputs) {
  std::string text;
  for (const SourceInput& in : inputs) {
    if (!text.empty()) text += '\n';
    text += escape(in.name) + '\t';
    if (!in.has_shape) {
      text += '*';
      continue;
    }
    for (size_t k = 0; k < in.dims.size(); ++k) {
      const SourceDim& d = in.dims[k];
      if (k) text += ',';
      // A symbol that reads as a number would decode as a static size.
      text += d.value >= 0                               ? std::to_string(d.value)
              : d.symbol.empty() || all_digits(d.symbol) ? "?"
                                                         : escape(d.symbol);
    }
  }
  return text;
}

std::string encode_source_outputs(const std::vector<std::string>& outputs) {
  std::string text;
  for (const std::string& name : outputs) {
    if (!text.empty()) text += '\n';  // appended apart: GCC 12 warns (-Wrestrict) on "\n" + str
    text += escape(name);
  }
  return text;
}

std::optional<SourceInterface> source_interface(const Model& model) {
  std::string inputs = model.metadata(kSourceInputsKey), outputs = model.metadata(kSourceOutputsKey);
  if (inputs.empty() && outputs.empty()) return std::nullopt;
  SourceInterface iface;
  for (const std::string& line : inputs.empty() ? std::vector<std::string>{} : split(inputs, '\n')) {
    size_t tab = line.rfind('\t');
    SourceInput in;
    in.name = unescape(line.substr(0, tab));
    std::string dims = tab == std::string::npos ? "*" : line.substr(tab + 1);
    in.has_shape = dims != "*";
    for (const std::string& part : in.has_shape && !dims.empty() ? split(dims, ',') : std::vector<std::string>{}) {
      SourceDim d;
      if (all_digits(part) && part.size() < 19) {
        d.value = std::stoll(part);
      } else if (part != "?") {
        d.symbol = unescape(part);
      }
      in.dims.push_back(std::move(d));
    }
    iface.inputs.push_back(std::move(in));
  }
  for (const std::string& line : outputs.empty() ? std::vector<std::string>{} : split(outputs, '\n')) {
    iface.outputs.push_back(unescape(line));
  }
  return iface;
}

std::string source_dims_to_string(const SourceInput& input) {
  if (!input.has_shape) return "(no declared shape)";
  std::string s = "[";
  for (size_t k = 0; k < input.dims.size(); ++k) {
    const SourceDim& d = input.dims[k];
    s += (k ? ", " : "") + (d.value >= 0 ? std::to_string(d.value) : d.symbol.empty() ? "?" : d.symbol);
  }
  return s + "]";
}

}  // namespace mote
