// Shape and data movement: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE,
// CONCATENATION, PACK, SPLIT, SPLIT_V, SLICE, STRIDED_SLICE, GATHER, the PAD
// family, DEPTH_TO_SPACE, SPACE_TO_DEPTH and the RESIZE pair. Ops whose axes
// can be renumbered work on an NCHW-held tensor in place (a concatenation of
// two convolutions stays NCHW); the others read the NHWC form.
#include <limits>

#include "converters/tflite/mapper_util.hpp"

namespace mote::convert {
namespace {

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

std::vector<int64_t> output_dims(TfliteOpContext& ctx) {
  Shape s = ctx.output_shape(0);
  return {s.begin(), s.end()};
}

// The target comes from the shape input, else the options, else the output
// tensor's declared shape.
Status map_reshape(TfliteOpContext& ctx) {
  std::optional<std::vector<int64_t>> shape = ctx.constant_ints(1);
  if (!shape) {
    if (const auto* o = ctx.options<tfl::ReshapeOptions>(false); o && o->new_shape() && o->new_shape()->size() > 0) {
      shape = std::vector<int64_t>(o->new_shape()->begin(), o->new_shape()->end());
    }
  }
  int target = shape ? ctx.constant_i64(*shape, "shape") : -1;
  if (!shape && ctx.has_input(1)) {
    target = ctx.temp("shape_i64");
    fb::CastAttrsT c;
    c.to = DType::I64;
    ctx.emit(fb::OpType::Cast, {ctx.input(1)}, {target}, c);
  }
  if (target < 0) target = ctx.constant_i64(output_dims(ctx), "shape");
  const Layout layout =
      ctx.input_held_nchw(0) && same_order_in_nchw(ctx.input_shape(0)) ? Layout::kNchw : Layout::kNhwc;
  ctx.emit(fb::OpType::Reshape, {ctx.input(0, layout), target}, {ctx.output(0)});
  return ctx.status();
}

Status map_squeeze(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::SqueezeOptions>(false);
  std::vector<int64_t> axes;
  if (o && o->squeeze_dims()) axes.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  if (axes.empty()) {
    const Shape s = ctx.input_shape(0);
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] == 1) axes.push_back(static_cast<int64_t>(k));
    }
  }
  ctx.emit(fb::OpType::Squeeze, {ctx.input(0), ctx.constant_i64(axes, "axes")}, {ctx.output(0)});
  return ctx.status();
}

Status map_expand_dims(TfliteOpContext& ctx) {
  auto axis = ctx.constant_ints(1);
  if (!axis || axis->size() != 1) return ctx.unsupported("the axis (input 1) must be a one-element constant");
  ctx.emit(fb::OpType::Unsqueeze, {ctx.input(0), ctx.constant_i64(*axis, "axes")}, {ctx.output(0)});
  return ctx.status();
}

// On an NCHW-held input the permutation is composed with NCHW -> NHWC, so
// it stays one Transpose.
Status map_transpose(TfliteOpContext& ctx) {
  auto perm = ctx.constant_ints(1);
  if (!perm) return ctx.unsupported("the permutation (input 1) must be a constant");
  const bool nchw = ctx.input_held_nchw(0) && perm->size() == 4;
  fb::TransposeAttrsT a;
  a.perm = *perm;
  if (nchw) {
    for (int64_t& p : a.perm) p = nchw_axis(p);
  }
  ctx.emit(fb::OpType::Transpose, {ctx.input(0, nchw ? Layout::kNchw : Layout::kNhwc)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_concatenation(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::ConcatenationOptions>();
  if (!o) return ctx.status();
  if (ctx.input_count() == 0) return ctx.invalid("has no inputs");
  std::vector<int> slots;
  for (int i = 0; i < ctx.input_count(); ++i) slots.push_back(i);
  const Layout layout = follow_inputs(ctx, slots);
  fb::AxisAttrsT a;
  a.axis = layout == Layout::kNchw ? nchw_axis(o->axis()) : o->axis();
  std::vector<int> inputs;
  for (int i : slots) inputs.push_back(broadcast_input(ctx, i, layout));
  ctx.emit(fb::OpType::Concat, inputs, {ctx.output_before(o->fused_activation_function(), 0, layout)}, a);
  return ctx.status();
}

Status map_pack(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::PackOptions>();
  if (!o) return ctx.status();
  if (ctx.input_count() == 0) return ctx.invalid("has no inputs");
  int64_t axis = o->axis();
  if (axis < 0) axis += ctx.input_rank(0) + 1;
  std::vector<int> parts;
  for (int i = 0; i < ctx.input_count(); ++i) {
    int part = ctx.temp("expanded_" + std::to_string(i));
    ctx.emit(fb::OpType::Unsqueeze, {ctx.input(i), ctx.constant_i64({axis}, "axis")}, {part});
    parts.push_back(part);
  }
  fb::AxisAttrsT a;
  a.axis = axis;
  ctx.emit(fb::OpType::Concat, parts, {ctx.output(0)}, a);
  return ctx.status();
}

// SPLIT (axis, data) into equal parts; SPLIT_V (data, sizes, axis).
Status split(TfliteOpContext& ctx, int data, int axis_slot, std::optional<std::vector<int64_t>> sizes) {
  auto axis = ctx.constant_ints(axis_slot);
  if (!axis || axis->size() != 1) return ctx.unsupported("the axis must be a one-element constant");
  const Shape s = ctx.input_shape(data);
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + static_cast<int64_t>(s.size()) : (*axis)[0];
  const Layout layout = s.size() == 4 && ctx.input_held_nchw(data) ? Layout::kNchw : Layout::kNhwc;
  fb::SplitAttrsT attrs;
  attrs.axis = layout == Layout::kNchw ? nchw_axis(a) : a;
  attrs.num_outputs = ctx.output_count();
  std::vector<int> inputs = {ctx.input(data, layout)};
  if (sizes) {
    // One size may be -1: the rest of the axis.
    int64_t known = 0, unknown = -1;
    for (size_t k = 0; k < sizes->size(); ++k) {
      if ((*sizes)[k] < 0) unknown = static_cast<int64_t>(k);
      else known += (*sizes)[k];
    }
    if (unknown >= 0 && a >= 0 && a < static_cast<int64_t>(s.size())) (*sizes)[static_cast<size_t>(unknown)] = s[static_cast<size_t>(a)] - known;
    inputs.push_back(ctx.constant_i64(*sizes, "sizes"));
  }
  std::vector<int> outputs;
  for (int i = 0; i < ctx.output_count(); ++i) outputs.push_back(ctx.output(i, layout));
  ctx.emit(fb::OpType::Split, inputs, outputs, attrs);
  return ctx.status();
}

Status map_split(TfliteOpContext& ctx) { return split(ctx, 1, 0, std::nullopt); }

Status map_split_v(TfliteOpContext& ctx) {
  auto sizes = ctx.constant_ints(1);
  if (!sizes) return ctx.unsupported("the split sizes (input 1) must be a constant");
  return split(ctx, 0, 2, sizes);
}

Status emit_slice(TfliteOpContext& ctx, std::vector<int64_t> starts, std::vector<int64_t> ends,
                  std::vector<int64_t> steps, int out) {
  const bool nchw = ctx.input_held_nchw(0) && starts.size() == 4;
  if (nchw) {
    starts = to_nchw_order(starts);
    ends = to_nchw_order(ends);
    steps = to_nchw_order(steps);
  }
  std::vector<int64_t> axes(starts.size());
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  int x = ctx.input(0, nchw ? Layout::kNchw : Layout::kNhwc);
  if (out < 0) out = ctx.output(0, nchw ? Layout::kNchw : Layout::kNhwc);
  ctx.emit(fb::OpType::Slice,
           {x, ctx.constant_i64(starts, "starts"), ctx.constant_i64(ends, "ends"), ctx.constant_i64(axes, "axes"),
            ctx.constant_i64(steps, "steps")},
           {out});
  return ctx.status();
}

// begin and size; size -1 runs to the end.
Status map_slice(TfliteOpContext& ctx) {
  auto begin = ctx.constant_ints(1), size = ctx.constant_ints(2);
  if (!begin || !size || begin->size() != size->size()) return ctx.unsupported("begin and size must be constants of one length");
  std::vector<int64_t> ends(begin->size());
  for (size_t k = 0; k < ends.size(); ++k) ends[k] = (*size)[k] < 0 ? kToEnd : (*begin)[k] + (*size)[k];
  return emit_slice(ctx, *begin, ends, std::vector<int64_t>(begin->size(), 1), -1);
}

// begin, end, strides with TensorFlow's masks: a begin/end mask bit takes
// the whole range on that axis; a shrink bit keeps one element and drops the
// axis. Ellipsis and new-axis masks are refused.
Status map_strided_slice(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::StridedSliceOptions>();
  if (!o) return ctx.status();
  if (o->ellipsis_mask() != 0 || o->new_axis_mask() != 0) {
    return ctx.unsupported("ellipsis_mask and new_axis_mask are not supported");
  }
  auto begin = ctx.constant_ints(1), end = ctx.constant_ints(2), strides = ctx.constant_ints(3);
  if (!begin || !end || !strides || begin->size() != end->size() || begin->size() != strides->size()) {
    return ctx.unsupported("begin, end and strides must be constants of one length");
  }
  std::vector<int64_t> starts = *begin, ends = *end, steps = *strides, shrink;
  for (size_t k = 0; k < starts.size(); ++k) {
    const bool backwards = steps[k] < 0;
    const int bit = 1 << k;
    if (o->offset()) ends[k] += starts[k];
    if (o->begin_mask() & bit) starts[k] = backwards ? kToEnd : 0;
    if (o->end_mask() & bit) ends[k] = backwards ? std::numeric_limits<int64_t>::min() : kToEnd;
    if (o->shrink_axis_mask() & bit) {
      ends[k] = starts[k] == -1 ? kToEnd : starts[k] + 1;
      steps[k] = 1;
      shrink.push_back(static_cast<int64_t>(k));
    }
  }
  if (shrink.empty()) return emit_slice(ctx, starts, ends, steps, -1);
  int sliced = ctx.temp("sliced");
  // The shrink axes are NHWC numbers: slice in NHWC order.
  std::vector<int64_t> axes(starts.size());
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  ctx.emit(fb::OpType::Slice,
           {ctx.input(0), ctx.constant_i64(starts, "starts"), ctx.constant_i64(ends, "ends"),
            ctx.constant_i64(axes, "axes"), ctx.constant_i64(steps, "steps")},
           {sliced});
  ctx.emit(fb::OpType::Squeeze, {sliced, ctx.constant_i64(shrink, "shrink_axes")}, {ctx.output(0)});
  return ctx.status();
}

Status map_gather(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::GatherOptions>(false);
  if (o && o->batch_dims() != 0) return ctx.unsupported("batch_dims other than 0 is not supported");
  fb::AxisAttrsT a;
  a.axis = o ? o->axis() : 0;
  ctx.emit(fb::OpType::Gather, {ctx.input(0), ctx.raw_input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

// paddings [rank, 2] -> Mote's begins..., ends...
Status pad(TfliteOpContext& ctx, fb::PadMode mode) {
  auto paddings = ctx.constant_ints(1);
  const size_t rank = ctx.input_shape(0).size();
  if (!paddings || paddings->size() != 2 * rank) return ctx.unsupported("paddings (input 1) must be a constant [rank, 2]");
  std::vector<int64_t> begins(rank), ends(rank);
  for (size_t k = 0; k < rank; ++k) {
    begins[k] = (*paddings)[2 * k];
    ends[k] = (*paddings)[2 * k + 1];
  }
  const Layout layout = follow_inputs(ctx, {0});
  if (layout == Layout::kNchw) {
    begins = to_nchw_order(begins);
    ends = to_nchw_order(ends);
  }
  begins.insert(begins.end(), ends.begin(), ends.end());
  std::vector<int> inputs = {ctx.input(0, layout), ctx.constant_i64(begins, "pads")};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  fb::PadAttrsT a;
  a.mode = mode;
  ctx.emit(fb::OpType::Pad, inputs, {ctx.output(0, layout)}, a);
  return ctx.status();
}

Status map_pad(TfliteOpContext& ctx) { return pad(ctx, fb::PadMode::Constant); }

Status map_mirror_pad(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::MirrorPadOptions>(false);
  if (o && o->mode() == tfl::MirrorPadMode::SYMMETRIC) return ctx.unsupported("SYMMETRIC mirror padding is not supported");
  return pad(ctx, fb::PadMode::Reflect);
}

// TensorFlow's depth_to_space orders channels as ONNX's DCR mode does.
Status depth_space(TfliteOpContext& ctx, fb::OpType type, int block) {
  fb::DepthSpaceAttrsT a;
  a.blocksize = block;
  a.mode = fb::DepthToSpaceMode::DCR;
  ctx.emit(type, {ctx.input(0, Layout::kNchw)}, {ctx.output(0, Layout::kNchw)}, a);
  return ctx.status();
}

Status map_depth_to_space(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::DepthToSpaceOptions>();
  return o ? depth_space(ctx, fb::OpType::DepthToSpace, o->block_size()) : ctx.status();
}

Status map_space_to_depth(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::SpaceToDepthOptions>();
  return o ? depth_space(ctx, fb::OpType::SpaceToDepth, o->block_size()) : ctx.status();
}

// size (input 1) is [new_height, new_width]. align_corners and
// half_pixel_centers pick the coordinate mapping; TensorFlow's half-pixel
// nearest rounds (x + 0.5) / scale down, ONNX's half_pixel with
// round_prefer_ceil.
Status resize(TfliteOpContext& ctx, fb::ResizeMode mode, bool align_corners, bool half_pixel) {
  auto size = ctx.constant_ints(1);
  const Shape x = ctx.input_shape(0);
  if (!size || size->size() != 2 || x.size() != 4) return ctx.unsupported("expects a 4-D input and a constant size [h, w]");
  fb::ResizeAttrsT a;
  a.mode = mode;
  using C = fb::CoordinateTransform;
  a.coordinate_transformation_mode = align_corners ? C::AlignCorners : half_pixel ? C::HalfPixel : C::Asymmetric;
  a.nearest_mode = align_corners || half_pixel ? fb::NearestMode::RoundPreferCeil : fb::NearestMode::Floor;
  int sizes = ctx.constant_i64({x[0], x[3], (*size)[0], (*size)[1]}, "sizes");
  ctx.emit(fb::OpType::Resize, {ctx.input(0, Layout::kNchw), -1, -1, sizes}, {ctx.output(0, Layout::kNchw)}, a);
  return ctx.status();
}

Status map_resize_bilinear(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::ResizeBilinearOptions>(false);
  return resize(ctx, fb::ResizeMode::Linear, o && o->align_corners(), o && o->half_pixel_centers());
}

Status map_resize_nearest_neighbor(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::ResizeNearestNeighborOptions>(false);
  return resize(ctx, fb::ResizeMode::Nearest, o && o->align_corners(), o && o->half_pixel_centers());
}

}  // namespace

MOTE_TFLITE_OP(RESHAPE, map_reshape);
MOTE_TFLITE_OP(SQUEEZE, map_squeeze);
MOTE_TFLITE_OP(EXPAND_DIMS, map_expand_dims);
MOTE_TFLITE_OP(TRANSPOSE, map_transpose);
MOTE_TFLITE_OP(CONCATENATION, map_concatenation);
MOTE_TFLITE_OP(PACK, map_pack);
MOTE_TFLITE_OP(SPLIT, map_split);
MOTE_TFLITE_OP(SPLIT_V, map_split_v);
MOTE_TFLITE_OP(SLICE, map_slice);
MOTE_TFLITE_OP(STRIDED_SLICE, map_strided_slice);
MOTE_TFLITE_OP(GATHER, map_gather);
MOTE_TFLITE_OP(PAD, map_pad);
MOTE_TFLITE_OP(PADV2, map_pad);
MOTE_TFLITE_OP(MIRROR_PAD, map_mirror_pad);
MOTE_TFLITE_OP(DEPTH_TO_SPACE, map_depth_to_space);
MOTE_TFLITE_OP(SPACE_TO_DEPTH, map_space_to_depth);
MOTE_TFLITE_OP(RESIZE_BILINEAR, map_resize_bilinear);
MOTE_TFLITE_OP(RESIZE_NEAREST_NEIGHBOR, map_resize_nearest_neighbor);

}  // namespace mote::convert
