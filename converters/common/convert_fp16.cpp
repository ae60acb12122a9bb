// --fp16: float weights stored as IEEE half, halving the weight segment; the
// runtime widens them to f32 once at load, so accuracy is that of the
// rounded weights and the arithmetic stays f32.
//
// Left in f32: tensors some op reads as a shape-deciding value (Resize
// scales: rounding 0.6 could change an output size), small tensors (under
// kMinElements: epsilons, bounds and scalars, where rounding can change
// meaning, e.g. 1e-12 becomes 0, and the saving is nil), and tensors with
// values beyond f16's range (they would become infinities).
#include <cmath>

#include "converters/common/passes.hpp"
#include "runtime/core/half.hpp"
#include "runtime/core/registry.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fp16";
constexpr int64_t kMinElements = 16;
constexpr float kHalfMax = 65504.0f;

}  // namespace

Status convert_weights_to_f16(Graph& graph, PassLog& log) {
  std::vector<char> value_input(graph.values.size(), 0);
  for (const auto& op : graph.ops) {
    if (!op) continue;
    const OpDef* def = find_op_def(op->type);
    uint32_t mask = def ? def->value_inputs : 0;
    for (size_t j = 0; j < op->inputs.size() && j < 32; ++j) {  // a 32-bit mask
      if (op->inputs[j] >= 0 && (mask >> j & 1u)) value_input[static_cast<size_t>(op->inputs[j])] = 1;
    }
  }
  for (size_t i = 0; i < graph.values.size(); ++i) {
    Value& v = graph.values[i];
    if (!v.is_constant() || v.data->dtype() != DType::F32) continue;
    if (value_input[i] || graph.is_output(static_cast<int>(i)) || v.data->numel() < kMinElements) {
      log.count(kPass, "float tensors kept in f32 (small or shape-deciding)");
      continue;
    }
    const float* src = v.data->data<float>();
    bool in_range = true;
    for (int64_t k = 0; k < v.data->numel() && in_range; ++k) in_range = std::isfinite(src[k]) && std::fabs(src[k]) <= kHalfMax;
    if (!in_range) {
      log.count(kPass, "float tensors kept in f32 (values beyond f16 range)");
      log.note(kPass, "kept '" + v.name + "' in f32: values beyond f16's range");
      continue;
    }
    Tensor half = Tensor::zeros(DType::F16, v.data->shape());
    for (int64_t k = 0; k < v.data->numel(); ++k) half.data<uint16_t>()[k] = float_to_half(src[k]);
    log.count(kPass, "bytes saved", static_cast<int64_t>(v.data->bytes() - half.bytes()));
    log.count(kPass, "tensors stored as f16");
    v.data = std::move(half);
    v.dtype = DType::F16;
  }
  return {};
}

}  // namespace mote::convert
