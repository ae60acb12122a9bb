// QUANTIZE, DEQUANTIZE and CAST. DEQUANTIZE also widens float16 weights
// (TFLite's float16 models keep their weights as f16 constants behind a
// DEQUANTIZE; the Cast is folded at conversion time).
#include "converters/tflite/mapper_util.hpp"
#include "converters/tflite/tflite_tensors.hpp"

namespace mote::convert {
namespace {

Status map_dequantize(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0});
  // input() gives the float value: dequantised, or the f16 tensor as stored.
  int x = ctx.input(0, layout);
  if (ctx.input_dtype(0) == DType::F16) {
    fb::CastAttrsT a;
    a.to = DType::F32;
    ctx.emit(fb::OpType::Cast, {x}, {ctx.output(0, layout)}, a);
  } else {
    ctx.emit(fb::OpType::Identity, {x}, {ctx.output(0, layout)});
  }
  return ctx.status();
}

// Float (or a quantised tensor, requantised) into the output's scale.
Status map_quantize(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0});
  // output() quantises what it is given into the output tensor's scale.
  ctx.emit(fb::OpType::Identity, {ctx.input(0, layout)}, {ctx.output(0, layout)});
  return ctx.status();
}

Status map_cast(TfliteOpContext& ctx) {
  const Layout layout = follow_inputs(ctx, {0});
  fb::CastAttrsT a;
  a.to = ctx.output_dtype(0);
  ctx.emit(fb::OpType::Cast, {ctx.raw_input(0, layout)}, {ctx.raw_output(0, layout)}, a);
  return ctx.status();
}

}  // namespace

MOTE_TFLITE_OP(DEQUANTIZE, map_dequantize);
MOTE_TFLITE_OP(QUANTIZE, map_quantize);
MOTE_TFLITE_OP(CAST, map_cast);

}  // namespace mote::convert
