#include "runtime/ops/value_inputs.hpp"

namespace mote {

Result<std::vector<int64_t>> read_int_list(const Tensor& t, const std::string& what) {
  if (t.dtype() != DType::I64 && t.dtype() != DType::I32) {
    return invalid_argument(what + " must be i64 or i32, not " + dtype_name(t.dtype()));
  }
  if (t.rank() > 1) return invalid_argument(what + " must be 1-D, not " + shape_to_string(t.shape()));
  if (t.numel() > 0 && t.raw() == nullptr) return invalid_argument(what + " has no data");
  std::vector<int64_t> values(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = t.dtype() == DType::I64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
  }
  return values;
}

Result<const Tensor*> known_input_value(const ShapeContext& ctx, size_t i, const std::string& what) {
  if (!ctx.has_input(i)) return ctx.fail(what + " is missing");
  const Tensor* value = ctx.inputs[i].value;
  if (value == nullptr) return ctx.fail(what + " must be known before run time (a constant or computed from shapes)");
  return value;
}

Result<std::vector<int64_t>> known_int_list(const ShapeContext& ctx, size_t i, const std::string& what) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* value, known_input_value(ctx, i, what));
  auto list = read_int_list(*value, what);
  if (!list.ok()) return ctx.fail(list.status().message());
  return list;
}

}  // namespace mote
