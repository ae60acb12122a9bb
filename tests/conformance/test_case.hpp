// One ONNX backend node test on disk: model.onnx plus test_data_set_*/
// holding input_<i>.pb and output_<i>.pb (serialized TensorProtos).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace onnx {
class ModelProto;
}

namespace mote::conformance {

struct DataSet {
  std::string dir;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

struct TestCase {
  std::string name;  // the directory name, e.g. test_conv_with_strides_padding
  std::string dir;
  std::shared_ptr<onnx::ModelProto> model;
  // ONNX op types in the graph (subgraphs included) and the element types
  // of its inputs and outputs.
  std::set<std::string> op_types;
  std::set<int32_t> io_types;
};

// The test directories under `root` (those holding a model.onnx), sorted.
std::vector<std::string> list_tests(const std::string& root);

// Parses model.onnx; op_types and io_types are filled.
Result<TestCase> load_test(const std::string& root, const std::string& name);

// Every test_data_set_* of the test, sorted; tensors decoded with the
// converter's TensorProto reader.
Result<std::vector<DataSet>> load_data_sets(const TestCase& test);

}  // namespace mote::conformance
