// Small data-movement ops:
//   BitCast(x): x's bytes read as CastAttrs.to (same element size).
//   CenterCropPad(x, shape): the listed axes cropped or zero-padded to
//     `shape` (a value input) around the centre.
//   ReverseSequence(x, sequence_lens): the first sequence_lens[b] steps of
//     each batch entry reversed along the time axis.
//   HannWindow, HammingWindow, BlackmanWindow(size): 1-D windows of `size`
//     (a value input).
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/shape_fns.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

Status infer_bit_cast(ShapeContext& ctx) {
  const DType to = attrs<fb::CastAttrsT>(ctx.op).to;
  if (dtype_size(to) != dtype_size(ctx.dtype(0))) {
    return ctx.fail(std::string("BitCast between element sizes that differ (") + dtype_name(ctx.dtype(0)) + " to " +
                    dtype_name(to) + ") is not supported");
  }
  ctx.set_output(0, to, ctx.shape(0));
  return {};
}

Status infer_center_crop_pad(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, known_int_list(ctx, 1, "'shape' (input 1)"));
  std::vector<int64_t> axes = attrs<fb::AxesAttrsT>(ctx.op).axes;
  if (axes.empty()) {
    for (int d = 0; d < ctx.rank(0); ++d) axes.push_back(d);
  }
  if (axes.size() != shape.size()) {
    return ctx.fail("shape has " + std::to_string(shape.size()) + " entries for " + std::to_string(axes.size()) + " axes");
  }
  Shape out = ctx.shape(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    auto axis = normalize_axis(axes[k], ctx.rank(0));
    if (!axis.ok() || shape[k] < 0) return ctx.fail("axis " + std::to_string(axes[k]) + " or its size is out of range");
    out[static_cast<size_t>(*axis)] = shape[k];
  }
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

Status infer_reverse_sequence(ShapeContext& ctx) {
  const auto& a = attrs<fb::SequenceAttrsT>(ctx.op);
  const bool axes_ok = ctx.rank(0) >= 2 && (a.batch_axis == 0 || a.batch_axis == 1) &&
                       (a.time_axis == 0 || a.time_axis == 1) && a.batch_axis != a.time_axis;
  if (!axes_ok || ctx.shape(1) != Shape{ctx.shape(0)[static_cast<size_t>(a.batch_axis)]}) {
    return ctx.fail("input " + shape_to_string(ctx.shape(0)) + ", sequence_lens " + shape_to_string(ctx.shape(1)) +
                    " and axes (batch " + std::to_string(a.batch_axis) + ", time " + std::to_string(a.time_axis) +
                    ") do not fit");
  }
  return shape_fns::same_as_input0(ctx);
}

Status infer_window(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* size, known_input_value(ctx, 0, "'size' (input 0)"));
  if (size->numel() != 1 || size->to_int64s()[0] < 0) return ctx.fail("size must be one non-negative integer");
  const DType dtype = attrs<fb::WindowAttrsT>(ctx.op).dtype;
  if (dtype != DType::F32 && dtype != DType::F64) return ctx.fail(std::string("output_datatype ") + dtype_name(dtype) + " is not a float");
  ctx.set_output(0, dtype, {size->to_int64s()[0]});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(BitCast, {.infer = mote::infer_bit_cast});
MOTE_OP_DEF(CenterCropPad, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 0b10u, .infer = mote::infer_center_crop_pad});
MOTE_OP_DEF(ReverseSequence, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_reverse_sequence});
MOTE_OP_DEF(HannWindow, {.value_inputs = 0b1u, .infer = mote::infer_window});
MOTE_OP_DEF(HammingWindow, {.value_inputs = 0b1u, .infer = mote::infer_window});
MOTE_OP_DEF(BlackmanWindow, {.value_inputs = 0b1u, .infer = mote::infer_window});
