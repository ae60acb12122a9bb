#include "tests/conformance/run_test.hpp"

#include <cstring>

#include "converters/onnx/onnx_converter.hpp"
#include "mote/model.hpp"
#include "onnx.pb.h"

namespace mote::conformance {

Outcome run_test(const TestCase& test, Backend backend, const Tolerance& tolerance) {
  auto sets = load_data_sets(test);
  if (!sets.ok()) return {false, "data: " + sets.status().message()};

  // Inputs declared with symbolic dimensions take the data's shape, as
  // --input-shape would; static declarations are converted as they are.
  convert::ConvertOptions options;
  std::set<std::string> initializers;
  for (const auto& init : test.model->graph().initializer()) initializers.insert(init.name());
  size_t k = 0;
  for (const auto& input : test.model->graph().input()) {
    if (initializers.count(input.name())) continue;
    bool is_static = input.type().tensor_type().has_shape();
    for (const auto& dim : input.type().tensor_type().shape().dim()) is_static = is_static && dim.has_dim_value();
    if (!is_static && k < (*sets)[0].inputs.size()) options.import.input_shapes[input.name()] = (*sets)[0].inputs[k].shape();
    ++k;
  }
  auto converted = convert::convert_onnx(*test.model, test.dir + "/model.onnx", test.dir, options);
  if (!converted.ok()) return {false, "convert: " + converted.status().message()};
  // A 64-byte aligned copy, as an mmap of a file would be: kernels may rely
  // on the alignment of weights used in place.
  Tensor file = Tensor::zeros(DType::U8, {static_cast<int64_t>(converted->mote.size())});
  std::memcpy(file.raw(), converted->mote.data(), converted->mote.size());
  auto model = Model::from_buffer(file.raw(), converted->mote.size(), test.name + ".mote");
  if (!model.ok()) return {false, "load: " + model.status().message()};
  SessionOptions session_options;
  session_options.backend = backend;
  session_options.threads = 1;
  // The tests are tiny: run them on the GPU even below the island threshold,
  // to test the kernels rather than the threshold.
  session_options.min_gpu_island_elements = 0;
  // A GPU fault fails the test (instead of finishing it on the CPU) and
  // says so, so the runner can start the next test in a fresh process.
  session_options.gpu_faults = GpuFaultPolicy::kReturnError;
  const auto failed = [](const std::string& why, const Status& status) {
    return Outcome{false, why + status.message(), false, status.code() == StatusCode::kGpuFault};
  };
  auto session = Session::create(*model, session_options);
  if (!session.ok()) return failed("session: ", session.status());

  std::vector<TensorDesc> outputs = (*model)->outputs();
  for (const DataSet& set : *sets) {
    std::string where = sets->size() > 1 ? set.dir.substr(set.dir.rfind('/') + 1) + ": " : "";
    auto got = (*session)->run(set.inputs);
    if (!got.ok()) return failed(where + "run: ", got.status());
    if (got->size() != set.outputs.size()) {
      return {false, where + "the model gives " + std::to_string(got->size()) + " outputs, the test stores " +
                         std::to_string(set.outputs.size())};
    }
    for (size_t i = 0; i < got->size(); ++i) {
      std::string diff = compare_tensors((*got)[i], set.outputs[i], tolerance);
      if (!diff.empty()) return {false, where + "output " + std::to_string(i) + " '" + outputs[i].name + "': " + diff};
    }
  }
  // For a pass without any GPU op, say why (the first op's placement).
  bool used_gpu = false;
  std::string why_not;
  for (const OpPlacement& p : (*session)->placement()) {
    used_gpu = used_gpu || p.device == "vulkan";
    if (why_not.empty()) why_not = p.op + ": " + p.device + (p.reason.empty() ? "" : " (" + p.reason + ")");
  }
  return {true, used_gpu ? std::string() : why_not, used_gpu};
}

}  // namespace mote::conformance
