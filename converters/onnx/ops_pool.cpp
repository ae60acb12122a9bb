// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, LpPool as
// (AveragePool(|x|^p, padding counted) * window size)^(1/p), and RoiAlign
// (opset 10 has no coordinate_transformation_mode: its behaviour is
// "output_half_pixel").
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

// storage_order=1 asks for column-major Indices; Mote's are row-major
// (offset = plane * H*W + h*W + w). For 2-D pooling with static H and W the
// converter turns them into plane * H*W + w*H + h with integer ops.
Status column_major_indices(NodeContext& ctx, int row_major, int column_major) {
  const Value& x = ctx.value(ctx.input(0));
  if (!x.shape_static() || x.shape.size() != 4) {
    return ctx.unsupported("storage_order=1 needs a 2-D pooling with a static input shape");
  }
  const int64_t h = x.shape[2], w = x.shape[3];
  auto i64 = [&](int64_t v, const char* name) { return ctx.scalar(DType::I64, static_cast<double>(v), name); };
  int plane_size = i64(h * w, "plane_size"), width = i64(w, "width"), height = i64(h, "height");
  int plane = ctx.temp("plane"), base = ctx.temp("plane_start"), offset = ctx.temp("offset_in_plane");
  int row = ctx.temp("row"), row_start = ctx.temp("row_start"), col = ctx.temp("col");
  int col_offset = ctx.temp("col_offset"), transposed = ctx.temp("transposed_offset");
  // Indices are non-negative, so integer Div is floor division here.
  ctx.emit(fb::OpType::Div, {row_major, plane_size}, {plane});
  ctx.emit(fb::OpType::Mul, {plane, plane_size}, {base});
  ctx.emit(fb::OpType::Sub, {row_major, base}, {offset});
  ctx.emit(fb::OpType::Div, {offset, width}, {row});
  ctx.emit(fb::OpType::Mul, {row, width}, {row_start});
  ctx.emit(fb::OpType::Sub, {offset, row_start}, {col});
  ctx.emit(fb::OpType::Mul, {col, height}, {col_offset});
  ctx.emit(fb::OpType::Add, {col_offset, row}, {transposed});
  ctx.emit(fb::OpType::Add, {base, transposed}, {column_major});
  return ctx.status();
}

Status map_max_pool(NodeContext& ctx) {
  fb::PoolAttrsT a = onnx_pool_attrs(ctx);
  if (!ctx.has_output(1) || ctx.attr_int("storage_order", 0) == 0) {
    ctx.emit(fb::OpType::MaxPool, {ctx.input(0)}, used_outputs(ctx), std::move(a));
    return ctx.status();
  }
  int row_major = ctx.temp("row_major_indices");
  ctx.emit(fb::OpType::MaxPool, {ctx.input(0)}, {ctx.output(0), row_major}, std::move(a));
  return column_major_indices(ctx, row_major, ctx.output(1));
}

Status map_average_pool(NodeContext& ctx) {
  fb::PoolAttrsT a = onnx_pool_attrs(ctx);
  a.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  ctx.emit(fb::OpType::AveragePool, {ctx.input(0)}, {ctx.output(0)}, std::move(a));
  return ctx.status();
}

Status map_lp_pool(NodeContext& ctx) {
  fb::PoolAttrsT a = onnx_pool_attrs(ctx);
  a.count_include_pad = true;  // padding adds 0 to the sum
  const double p = static_cast<double>(ctx.attr_int("p", 2));
  if (p <= 0) return ctx.invalid("p must be positive");
  int64_t window = 1;
  for (int64_t k : a.kernel_shape) window *= k;
  const int x = ctx.input(0);
  const DType d = DType::F32;  // f64 models are rare; f16 ones compute in f32 (widen_f16)
  const int magnitude = ctx.temp("abs"), powered = ctx.temp("powered"), mean = ctx.temp("mean"), sum = ctx.temp("sum");
  ctx.emit(fb::OpType::Abs, {x}, {magnitude});
  ctx.emit(fb::OpType::Pow, {magnitude, ctx.scalar(d, p, "p")}, {powered});
  ctx.emit(fb::OpType::AveragePool, {powered}, {mean}, std::move(a));
  ctx.emit(fb::OpType::Mul, {mean, ctx.scalar(d, static_cast<double>(window), "window")}, {sum});
  ctx.emit(fb::OpType::Pow, {sum, ctx.scalar(d, 1.0 / p, "inverse_p")}, {ctx.output(0)});
  return ctx.status();
}

template <fb::OpType kType>
Status map_global_pool(NodeContext& ctx) {
  ctx.emit(kType, {ctx.input(0)}, {ctx.output(0)});
  return ctx.status();
}

Status map_roi_align(NodeContext& ctx) {
  fb::RoiAlignAttrsT a;
  const std::string mode = ctx.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.invalid("unknown mode '" + mode + "'");
  a.mode = mode == "max" ? fb::RoiPoolMode::Max : fb::RoiPoolMode::Avg;
  const std::string transform =
      ctx.attr_string("coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return ctx.invalid("unknown coordinate_transformation_mode '" + transform + "'");
  }
  a.half_pixel = transform == "half_pixel";
  a.output_height = ctx.attr_int("output_height", 1);
  a.output_width = ctx.attr_int("output_width", 1);
  a.sampling_ratio = ctx.attr_int("sampling_ratio", 0);
  a.spatial_scale = ctx.attr_float("spatial_scale", 1.0f);
  ctx.emit(fb::OpType::RoiAlign, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

// MaxUnpool, by the ONNX definition: X scattered into zeros of the shape
// MaxPool came from, (in - 1) * stride + kernel - pads, at the flat offsets
// its Indices name; a given output_shape pads that at the end of each
// dimension. So it runs as ConstantOfShape, ScatterND, Reshape and Pad on
// every backend. Needs X's shape at conversion time.
Status map_max_unpool(NodeContext& ctx) {
  const int x = ctx.input(0), indices = ctx.input(1);
  const Value& xv = ctx.value(x);
  const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  const size_t dims = kernel.size();
  if (!xv.shape_static() || xv.shape.size() != dims + 2) {
    return ctx.unsupported("MaxUnpool needs a static input shape of rank kernel_shape + 2");
  }
  std::vector<int64_t> strides = ctx.attr_ints("strides"), pads = ctx.attr_ints("pads");
  strides.resize(dims, 1);
  pads.resize(2 * dims, 0);
  std::vector<int64_t> unpooled = {xv.shape[0], xv.shape[1]};
  for (size_t i = 0; i < dims; ++i) {
    unpooled.push_back((xv.shape[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + dims]);
  }
  const int shape = ctx.constant_i64(unpooled, "unpooled_shape");
  fb::ConstantOfShapeAttrsT zero;
  zero.dtype = ctx.input_dtype(0).value_or(DType::F32);
  const int zeros = ctx.temp("zeros"), flat_zeros = ctx.temp("flat_zeros"), flat_x = ctx.temp("flat_x");
  const int positions = ctx.temp("positions"), scattered = ctx.temp("scattered");
  ctx.emit(fb::OpType::ConstantOfShape, {shape}, {zeros}, zero);
  ctx.emit(fb::OpType::Reshape, {zeros, ctx.constant_i64({-1}, "flat")}, {flat_zeros}, fb::ReshapeAttrsT{});
  ctx.emit(fb::OpType::Reshape, {x, ctx.constant_i64({-1}, "flat_values")}, {flat_x}, fb::ReshapeAttrsT{});
  ctx.emit(fb::OpType::Reshape, {indices, ctx.constant_i64({-1, 1}, "one_per_row")}, {positions}, fb::ReshapeAttrsT{});
  ctx.emit(fb::OpType::ScatterND, {flat_zeros, positions, flat_x}, {scattered}, fb::ScatterAttrsT{});
  const int output_shape = ctx.optional_input(2);
  if (output_shape < 0) {
    ctx.emit(fb::OpType::Reshape, {scattered, shape}, {ctx.output(0)}, fb::ReshapeAttrsT{});
    return ctx.status();
  }
  // pads = [0 ... 0, output_shape - unpooled]: zeros before, the rest after.
  const int y = ctx.temp("unpooled"), extra = ctx.temp("extra"), end_pads = ctx.temp("pads");
  ctx.emit(fb::OpType::Reshape, {scattered, shape}, {y}, fb::ReshapeAttrsT{});
  ctx.emit(fb::OpType::Sub, {output_shape, shape}, {extra});
  fb::AxisAttrsT axis0;
  axis0.axis = 0;
  ctx.emit(fb::OpType::Concat, {ctx.constant_i64(std::vector<int64_t>(dims + 2, 0), "no_pads"), extra}, {end_pads},
           axis0);
  ctx.emit(fb::OpType::Pad, {y, end_pads}, {ctx.output(0)}, fb::PadAttrsT{});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(RoiAlign, map_roi_align);
MOTE_ONNX_OP(MaxPool, map_max_pool);
MOTE_ONNX_OP(MaxUnpool, map_max_unpool);
MOTE_ONNX_OP(AveragePool, map_average_pool);
MOTE_ONNX_OP(LpPool, map_lp_pool);
MOTE_ONNX_OP(GlobalAveragePool, map_global_pool<fb::OpType::GlobalAveragePool>);
MOTE_ONNX_OP(GlobalMaxPool, map_global_pool<fb::OpType::GlobalMaxPool>);

}  // namespace mote::convert
