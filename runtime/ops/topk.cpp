// TopK: the K largest (or smallest) elements along an axis and their i64
// indices. K is input 1 (a value input: it decides the output shape).
#include "runtime/ops/topk.hpp"

#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {

Result<int64_t> topk_k(const Tensor* k, int64_t axis_size) {
  if (!k) return invalid_argument("input K must be known before the op runs");
  if (k->dtype() != DType::I64 && k->dtype() != DType::I32) {
    return invalid_argument(std::string("input K must be i64, got ") + dtype_name(k->dtype()));
  }
  if (k->numel() != 1 || k->rank() > 1) {
    return invalid_argument("input K must hold exactly one value, got shape " + shape_to_string(k->shape()));
  }
  const int64_t value = k->to_int64s()[0];
  if (value < 0 || value > axis_size) {
    return invalid_argument("K = " + std::to_string(value) + " is outside [0, " + std::to_string(axis_size) +
                            "], the size of the axis");
  }
  return value;
}

namespace {

Status infer_topk(ShapeContext& ctx) {
  const DType t = ctx.dtype(0);
  if (t != DType::F32 && t != DType::I32 && t != DType::I64) {
    return ctx.fail(std::string("input X has unsupported dtype ") + dtype_name(t) + " (f32, i32 or i64)");
  }
  if (ctx.rank(0) < 1) return ctx.fail("input X must have rank >= 1, got a scalar");
  auto axis = normalize_axis(attrs<fb::TopKAttrsT>(ctx.op).axis, ctx.rank(0));
  if (!axis.ok()) return ctx.fail("attribute axis: " + axis.status().message());
  Shape out = ctx.shape(0);
  auto k = topk_k(ctx.has_input(1) ? ctx.inputs[1].value : nullptr, out[static_cast<size_t>(*axis)]);
  if (!k.ok()) return ctx.fail(k.status().message());
  out[static_cast<size_t>(*axis)] = *k;
  ctx.set_output(0, t, out);
  ctx.set_output(1, DType::I64, out);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(TopK, {.min_inputs = 2, .max_inputs = 2, .min_outputs = 1, .max_outputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_topk});
