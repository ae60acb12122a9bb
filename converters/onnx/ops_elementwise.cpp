// Binary arithmetic: Add, Sub, Mul, Div, Pow, Mod, Min, Max, PRelu, and Sum
// (a chain of Add). Mote broadcasts like numpy (ONNX opset 7 and later); the
// opset 1-6 broadcast attributes are rewritten by map_broadcasting_binary.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

template <fb::OpType kType>
Status map_binary(NodeContext& ctx) {
  return map_broadcasting_binary(ctx, kType);
}

// Variadic ops (Sum, Min, Max): a left-to-right chain of the binary op; one
// input is a copy.
template <fb::OpType kType>
Status map_variadic(NodeContext& ctx) {
  if (ctx.input_count() == 0) return ctx.invalid("needs at least one input");
  int acc = ctx.input(0);
  if (ctx.input_count() == 1) {
    ctx.emit(fb::OpType::Identity, {acc}, {ctx.output(0)});
    return ctx.status();
  }
  for (size_t i = 1; i < ctx.input_count(); ++i) {
    bool last = i + 1 == ctx.input_count();
    int out = last ? ctx.output(0) : ctx.temp("partial_" + std::to_string(i));
    ctx.emit(kType, {acc, ctx.input(i)}, {out});
    acc = out;
  }
  return ctx.status();
}

Status map_mod(NodeContext& ctx) {
  fb::ModAttrsT a;
  a.fmod = ctx.attr_int("fmod", 0) != 0;
  ctx.emit(fb::OpType::Mod, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_prelu(NodeContext& ctx) { return map_binary<fb::OpType::PRelu>(ctx); }

}  // namespace

MOTE_ONNX_OP(Add, map_binary<fb::OpType::Add>);
MOTE_ONNX_OP(Sub, map_binary<fb::OpType::Sub>);
MOTE_ONNX_OP(Mul, map_binary<fb::OpType::Mul>);
MOTE_ONNX_OP(Div, map_binary<fb::OpType::Div>);
MOTE_ONNX_OP(Pow, map_binary<fb::OpType::Pow>);
MOTE_ONNX_OP(Mod, map_mod);
MOTE_ONNX_OP(PRelu, map_prelu);
MOTE_ONNX_OP(Min, map_variadic<fb::OpType::Min>);
MOTE_ONNX_OP(Max, map_variadic<fb::OpType::Max>);
MOTE_ONNX_OP(Sum, map_variadic<fb::OpType::Add>);

}  // namespace mote::convert
