#include "runtime/ops/dynamic_quantize.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/core/op_def.hpp"

namespace mote {

DynamicQuantizeParams dynamic_quantize_params(float lo, float hi) {
  // The range always holds 0, so that zero is exact (padding's value).
  const float min0 = std::min(lo, 0.0f), max0 = std::max(hi, 0.0f);
  DynamicQuantizeParams p;
  p.scale = (max0 - min0) / 255.0f;  // in f32, as the definition computes it
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) return {};
  p.zero = static_cast<int32_t>(std::clamp(std::nearbyint(-min0 / p.scale), 0.0f, 255.0f));
  return p;
}

namespace {

Status infer_dynamic_quantize(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32) {
    return ctx.fail(std::string("x has dtype ") + dtype_name(ctx.dtype(0)) + "; expected f32");
  }
  ctx.set_output(0, DType::U8, ctx.shape(0));
  ctx.set_output(1, DType::F32, {});
  ctx.set_output(2, DType::U8, {});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(
    DynamicQuantizeLinear,
    {.min_inputs = 1, .max_inputs = 1, .min_outputs = 3, .max_outputs = 3, .infer = mote::infer_dynamic_quantize});
