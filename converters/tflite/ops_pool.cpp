// Pooling (NCHW), reductions (MEAN, SUM, REDUCE_*), SOFTMAX and LOG_SOFTMAX.
// Reductions and softmax read a 4-D input in the order it is held when their
// axes can be renumbered; a reduction that drops axes does so only when the
// remaining axes come out in TFLite's order (MobileNet's MEAN over H and W
// of an NCHW tensor gives [N, C] either way).
#include <algorithm>

#include "converters/tflite/mapper_util.hpp"

namespace mote::convert {
namespace {

Status pool(TfliteOpContext& ctx, fb::OpType type) {
  const auto* o = ctx.options<tfl::Pool2DOptions>();
  if (!o) return ctx.status();
  if (ctx.input_rank(0) != 4) return ctx.invalid("expects a 4-D input");
  fb::PoolAttrsT a;
  a.kernel_shape = {o->filter_height(), o->filter_width()};
  a.strides = {o->stride_h(), o->stride_w()};
  a.auto_pad = auto_pad(o->padding());
  a.count_include_pad = false;  // TFLite averages over the window's real elements
  ctx.emit(type, {ctx.input(0, Layout::kNchw)}, {ctx.output_before(o->fused_activation_function(), 0, Layout::kNchw)},
           a);
  return ctx.status();
}

Status map_average_pool_2d(TfliteOpContext& ctx) { return pool(ctx, fb::OpType::AveragePool); }
Status map_max_pool_2d(TfliteOpContext& ctx) { return pool(ctx, fb::OpType::MaxPool); }

Status reduce(TfliteOpContext& ctx, fb::OpType type) {
  auto axes = ctx.constant_ints(1);
  if (!axes) return ctx.unsupported("axes (input 1) must be a constant");
  const auto* o = ctx.options<tfl::ReducerOptions>(false);
  const bool keep = o && o->keep_dims();
  const size_t rank = ctx.input_shape(0).size();
  for (int64_t& a : *axes) {
    if (a < 0) a += static_cast<int64_t>(rank);
  }
  Layout layout = rank == 4 && ctx.input_held_nchw(0) ? Layout::kNchw : Layout::kNhwc;
  if (layout == Layout::kNchw && !keep) {
    // The kept axes, in NCHW positions, must be increasing.
    int64_t last = -1;
    for (int64_t a : {0, 1, 2, 3}) {
      if (std::find(axes->begin(), axes->end(), a) != axes->end()) continue;
      const int64_t p = nchw_axis(a);
      if (p < last) layout = Layout::kNhwc;
      last = std::max(last, p);
    }
  }
  if (layout == Layout::kNchw) {
    for (int64_t& a : *axes) a = nchw_axis(a);
  }
  fb::ReduceAttrsT a;
  a.keepdims = keep;
  const Layout out_layout = layout == Layout::kNchw && keep ? Layout::kNchw : Layout::kNhwc;
  ctx.emit(type, {ctx.input(0, layout), ctx.constant_i64(*axes, "axes")}, {ctx.output(0, out_layout)}, a);
  return ctx.status();
}

Status map_mean(TfliteOpContext& ctx) { return reduce(ctx, fb::OpType::ReduceMean); }
Status map_sum(TfliteOpContext& ctx) { return reduce(ctx, fb::OpType::ReduceSum); }
Status map_reduce_max(TfliteOpContext& ctx) { return reduce(ctx, fb::OpType::ReduceMax); }
Status map_reduce_min(TfliteOpContext& ctx) { return reduce(ctx, fb::OpType::ReduceMin); }
Status map_reduce_prod(TfliteOpContext& ctx) { return reduce(ctx, fb::OpType::ReduceProd); }

// Over the last axis (channels: axis 1 of an NCHW-held tensor); SOFTMAX
// scales its logits by beta first.
Status softmax(TfliteOpContext& ctx, fb::OpType type, float beta) {
  const Layout layout = follow_inputs(ctx, {0});
  int x = ctx.input(0, layout);
  if (beta != 1.0f) {
    int scaled = ctx.temp("scaled");
    ctx.emit(fb::OpType::Mul, {x, ctx.scalar_f32(beta, "beta")}, {scaled});
    x = scaled;
  }
  fb::AxisAttrsT a;
  a.axis = layout == Layout::kNchw ? 1 : -1;
  ctx.emit(type, {x}, {ctx.output(0, layout)}, a);
  return ctx.status();
}

Status map_softmax(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::SoftmaxOptions>(false);
  return softmax(ctx, fb::OpType::Softmax, o ? o->beta() : 1.0f);
}
Status map_log_softmax(TfliteOpContext& ctx) { return softmax(ctx, fb::OpType::LogSoftmax, 1.0f); }

}  // namespace

MOTE_TFLITE_OP(AVERAGE_POOL_2D, map_average_pool_2d);
MOTE_TFLITE_OP(MAX_POOL_2D, map_max_pool_2d);
MOTE_TFLITE_OP(MEAN, map_mean);
MOTE_TFLITE_OP(SUM, map_sum);
MOTE_TFLITE_OP(REDUCE_MAX, map_reduce_max);
MOTE_TFLITE_OP(REDUCE_MIN, map_reduce_min);
MOTE_TFLITE_OP(REDUCE_PROD, map_reduce_prod);
MOTE_TFLITE_OP(SOFTMAX, map_softmax);
MOTE_TFLITE_OP(LOG_SOFTMAX, map_log_softmax);

}  // namespace mote::convert
