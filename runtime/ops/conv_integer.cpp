#include "runtime/ops/conv_integer.hpp"

#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {
namespace {

Status infer_conv_integer(ShapeContext& ctx) {
  for (size_t i : {kCiX, kCiW}) {
    if (!is_8bit(ctx.dtype(i))) {
      return ctx.fail(std::string(i == kCiX ? "x" : "w") + " has dtype " + dtype_name(ctx.dtype(i)) +
                      "; expected i8 or u8");
    }
  }
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.shape(kCiX), ctx.shape(kCiW));
  if (!g.ok()) return ctx.fail(g.status().message());
  for (size_t i : {kCiXZero, kCiWZero}) {
    if (!ctx.has_input(i)) continue;
    const char* name = i == kCiXZero ? "x_zero_point" : "w_zero_point";
    const size_t operand = i == kCiXZero ? kCiX : kCiW;
    if (ctx.dtype(i) != ctx.dtype(operand)) {
      return ctx.fail(std::string(name) + " has dtype " + dtype_name(ctx.dtype(i)) + "; expected " +
                      (operand == kCiX ? "x's" : "w's"));
    }
    const int64_t n = shape_numel(ctx.shape(i));
    const int64_t per_channel = i == kCiWZero ? g->out_channels : 1;
    if (ctx.rank(i) > 1 || (n != 1 && n != per_channel)) {
      return ctx.fail(std::string(name) + " has shape " + shape_to_string(ctx.shape(i)) +
                      (i == kCiWZero
                           ? "; expected one value or one per output channel (" + std::to_string(per_channel) + ")"
                           : std::string("; expected one value")));
    }
  }
  ctx.set_output(0, DType::I32, g->output_shape());
  return {};
}

}  // namespace

ConvIntegerParams read_conv_integer_params(const KernelContext& ctx, int64_t out_channels) {
  ConvIntegerParams p;
  if (ctx.has_input(kCiXZero) && ctx.in(kCiXZero).raw()) p.x_zero = int8_element(ctx.in(kCiXZero), 0);
  for (int64_t m = 0; m < out_channels; ++m) {
    const bool has = ctx.has_input(kCiWZero);
    p.w_zero.push_back(has ? int8_element(ctx.in(kCiWZero), ctx.in(kCiWZero).numel() == 1 ? 0 : m) : 0);
  }
  return p;
}

}  // namespace mote

MOTE_OP_DEF(ConvInteger, {.min_inputs = 2, .max_inputs = 4, .infer = mote::infer_conv_integer});
