#include "tests/conformance/test_case.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "converters/onnx/onnx_file.hpp"
#include "converters/onnx/tensor_proto.hpp"
#include "onnx.pb.h"

namespace mote::conformance {
namespace fs = std::filesystem;

std::vector<std::string> list_tests(const std::string& root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

void collect_ops(const onnx::GraphProto& g, std::set<std::string>& ops) {
  for (const auto& node : g.node()) {
    ops.insert(node.domain().empty() || node.domain() == "ai.onnx" ? node.op_type() : node.domain() + "." + node.op_type());
    for (const auto& a : node.attribute()) {
      if (a.has_g()) collect_ops(a.g(), ops);
      for (const auto& sub : a.graphs()) collect_ops(sub, ops);
    }
  }
}

int32_t elem_type(const onnx::ValueInfoProto& v) {
  // Non-tensor types (sequences, optionals) count as type 0: unsupported.
  return v.type().has_tensor_type() ? v.type().tensor_type().elem_type() : 0;
}

Result<Tensor> read_tensor_pb(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path.string() + ": cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(buf.str())) return invalid_argument(path.string() + ": not a TensorProto");
  return convert::tensor_from_proto(proto, path.parent_path().string(), path.filename().string());
}

}  // namespace

Result<TestCase> load_test(const std::string& root, const std::string& name) {
  TestCase t;
  t.name = name;
  t.dir = (fs::path(root) / name).string();
  MOTE_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model,
                        convert::read_onnx_file((fs::path(t.dir) / "model.onnx").string()));
  t.model = std::move(model);
  collect_ops(t.model->graph(), t.op_types);
  std::set<std::string> initializers;
  for (const auto& init : t.model->graph().initializer()) initializers.insert(init.name());
  for (const auto& v : t.model->graph().input()) {
    if (!initializers.count(v.name())) t.io_types.insert(elem_type(v));
  }
  for (const auto& v : t.model->graph().output()) t.io_types.insert(elem_type(v));
  return t;
}

Result<std::vector<DataSet>> load_data_sets(const TestCase& test) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(test.dir, ec)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<DataSet> sets;
  for (const fs::path& dir : dirs) {
    DataSet set;
    set.dir = dir.string();
    for (int i = 0; fs::exists(dir / ("input_" + std::to_string(i) + ".pb")); ++i) {
      MOTE_ASSIGN_OR_RETURN(Tensor t, read_tensor_pb(dir / ("input_" + std::to_string(i) + ".pb")));
      set.inputs.push_back(std::move(t));
    }
    for (int i = 0; fs::exists(dir / ("output_" + std::to_string(i) + ".pb")); ++i) {
      MOTE_ASSIGN_OR_RETURN(Tensor t, read_tensor_pb(dir / ("output_" + std::to_string(i) + ".pb")));
      set.outputs.push_back(std::move(t));
    }
    sets.push_back(std::move(set));
  }
  if (sets.empty()) return not_found(test.dir + ": no test_data_set_* directory");
  return sets;
}

}  // namespace mote::conformance
