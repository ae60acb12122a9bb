#include "sdk/tools/run/inputs.hpp"

#include <random>

#include "runtime/core/half.hpp"
#include "sdk/tools/common/npy.hpp"

namespace mote::tools {
namespace {

std::string input_names(const Model& model) {
  std::string names;
  for (const TensorDesc& d : model.inputs()) names += (names.empty() ? "" : ", ") + d.name;
  return names.empty() ? "none" : names;
}

// Rank equal and every static declared dimension equal.
bool matches_declared(const Shape& shape, const Shape& declared) {
  if (shape.size() != declared.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (declared[i] >= 0 && declared[i] != shape[i]) return false;
  }
  return true;
}

// Uniform values: floats in [-1, 1), integers in [0, 10) so they are also
// valid as small indices, bools half true.
Tensor random_tensor(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::zeros(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  auto n = static_cast<size_t>(t.numel());
  for (size_t i = 0; i < n && t.raw(); ++i) {
    switch (dtype) {
      case DType::F32: t.data<float>()[i] = real(rng); break;
      case DType::F64: t.data<double>()[i] = real(rng); break;
      case DType::F16: t.data<uint16_t>()[i] = float_to_half(real(rng)); break;
      case DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(small(rng)); break;
      case DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng)); break;
      case DType::I32: t.data<int32_t>()[i] = small(rng); break;
      case DType::I64: t.data<int64_t>()[i] = small(rng); break;
      case DType::Bool: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng) % 2); break;
    }
  }
  return t;
}

Result<PreparedInput> from_file(const TensorDesc& decl, const std::string& path, const InputOptions& options) {
  MOTE_ASSIGN_OR_RETURN(Tensor tensor, read_npy(path));
  std::string where = "input '" + decl.name + "' from " + path;
  if (tensor.dtype() != decl.dtype) {
    return invalid_argument(where + ": the file holds " + dtype_name(tensor.dtype()) + ", the model expects " +
                            dtype_name(decl.dtype) + " (convert it, e.g. with numpy's .astype)");
  }
  if (!matches_declared(tensor.shape(), decl.shape)) {
    return invalid_argument(where + ": shape " + shape_to_string(tensor.shape()) + " does not match the declared " +
                            shape_to_string(decl.shape));
  }
  auto shape = options.shapes.find(decl.name);
  if (shape != options.shapes.end() && shape->second != tensor.shape()) {
    return invalid_argument(where + ": the file's shape " + shape_to_string(tensor.shape()) +
                            " contradicts --shape " + shape_to_string(shape->second));
  }
  return PreparedInput{std::move(tensor), path};
}

Result<PreparedInput> random_input(const TensorDesc& decl, const InputOptions& options, uint32_t seed) {
  auto given = options.shapes.find(decl.name);
  if (given == options.shapes.end() && shape_numel(decl.shape) < 0) {
    return invalid_argument("input '" + decl.name + "' has dynamic shape " + shape_to_string(decl.shape) +
                            "; give its shape with --shape " + decl.name + "=DIMS or its data with --input " +
                            decl.name + "=FILE.npy");
  }
  const Shape& shape = given != options.shapes.end() ? given->second : decl.shape;
  if (!matches_declared(shape, decl.shape)) {
    return invalid_argument("--shape " + decl.name + "=" + shape_to_string(shape) + " does not match the declared " +
                            shape_to_string(decl.shape));
  }
  Tensor tensor = random_tensor(decl.dtype, shape, seed);
  if (tensor.bytes() > 0 && !tensor.raw()) {
    return Status(StatusCode::kOutOfMemory, "input '" + decl.name + "': cannot allocate " +
                                                std::to_string(tensor.bytes()) + " bytes");
  }
  return PreparedInput{std::move(tensor), "random (seed " + std::to_string(seed) + ")"};
}

}  // namespace

Result<std::vector<PreparedInput>> make_inputs(const Model& model, const InputOptions& options) {
  std::vector<TensorDesc> decls = model.inputs();
  auto check_names = [&](const auto& by_name, const char* flag) -> Status {
    for (const auto& entry : by_name) {
      bool known = false;
      for (const TensorDesc& d : decls) known = known || d.name == entry.first;
      if (!known) {
        return not_found(std::string(flag) + " " + entry.first + ": the model has no such input (inputs: " +
                         input_names(model) + ")");
      }
    }
    return {};
  };
  MOTE_RETURN_IF_ERROR(check_names(options.files, "--input"));
  MOTE_RETURN_IF_ERROR(check_names(options.shapes, "--shape"));

  std::vector<PreparedInput> inputs;
  for (size_t k = 0; k < decls.size(); ++k) {
    auto file = options.files.find(decls[k].name);
    // Each input gets its own stream so adding an input leaves the others' data unchanged.
    auto input = file != options.files.end()
                     ? from_file(decls[k], file->second, options)
                     : random_input(decls[k], options, options.seed + static_cast<uint32_t>(k));
    if (!input.ok()) return input.status();
    inputs.push_back(std::move(input).value());
  }
  return inputs;
}

}  // namespace mote::tools
