#include "tests/conformance/selection.hpp"

#include <fstream>
#include <sstream>

#include "onnx.pb.h"

namespace mote::conformance {
namespace {

// The strings of the JSON array under `"key": [ ... ]`. The file is ours and
// flat (arrays of plain strings), so no general JSON parser is needed.
Result<std::set<std::string>> string_array(const std::string& json, const std::string& key, const std::string& path) {
  size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return invalid_argument(path + ": no \"" + key + "\"");
  at = json.find('[', at);
  size_t end = json.find(']', at);
  if (at == std::string::npos || end == std::string::npos) return invalid_argument(path + ": \"" + key + "\" is not an array");
  std::set<std::string> out;
  for (size_t q = json.find('"', at); q != std::string::npos && q < end; q = json.find('"', q + 1)) {
    size_t close = json.find('"', q + 1);
    if (close == std::string::npos || close > end) return invalid_argument(path + ": unterminated string in \"" + key + "\"");
    out.insert(json.substr(q + 1, close - q - 1));
    q = close;
  }
  return out;
}

}  // namespace

Result<Selection> read_selection(const std::string& json_path, bool use_list) {
  std::ifstream in(json_path);
  if (!in) return io_error(json_path + ": cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string json = buf.str();
  Selection s;
  if (json.find("\"core_ops\"") != std::string::npos) {
    MOTE_ASSIGN_OR_RETURN(s.core_ops, string_array(json, "core_ops", json_path));
    MOTE_ASSIGN_OR_RETURN(s.converter_only_ops, string_array(json, "converter_only_ops", json_path));
  } else if (!use_list) {
    return invalid_argument(json_path + ": no \"core_ops\"; a list-only description needs --use-list");
  }
  if (use_list) {
    MOTE_ASSIGN_OR_RETURN(std::set<std::string> tests, string_array(json, "tests", json_path));
    s.listed = std::move(tests);
  }
  return s;
}

std::string skip_reason(const Selection& selection, const TestCase& test) {
  if (selection.listed && !selection.listed->count(test.name)) return "not in the suite's test list";
  if (!selection.core_ops) return {};
  for (const std::string& op : test.op_types) {
    if (!selection.core_ops->count(op) && !selection.converter_only_ops.count(op)) return "op " + op + " is not in the core set";
  }
  for (int32_t t : test.io_types) {
    bool ok = t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::INT32 || t == onnx::TensorProto::INT64 ||
              t == onnx::TensorProto::BOOL;
    if (!ok) return "graph input/output type " + std::to_string(t) + " is outside f32/i32/i64/bool";
  }
  return {};
}

}  // namespace mote::conformance
