// Resize (opsets 10 to 19+) and Upsample (7 to 9, rewritten to Resize).
//
// Mote's Resize takes ONNX 11's inputs (X, roi, scales, sizes), all full
// rank, and the attributes of ResizeAttrs. Rewrites: opset 10 and Upsample
// had no coordinate_transformation_mode and mean "asymmetric"; opset 18's
// 'axes' become full-rank roi/scales/sizes and keep_aspect_ratio_policy
// becomes computed sizes, both built from ops so they also work when those
// inputs are only known at run time (with constants they fold away).
#include <algorithm>
#include <functional>

#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

bool parse_mode(NodeContext& ctx, fb::ResizeAttrsT& a) {
  std::string mode = ctx.attr_string("mode", "nearest");
  if (mode == "nearest") {
    a.mode = fb::ResizeMode::Nearest;
  } else if (mode == "linear" || mode == "bilinear") {
    a.mode = fb::ResizeMode::Linear;
  } else if (mode == "cubic") {
    a.mode = fb::ResizeMode::Cubic;
  } else {
    ctx.fail(ctx.unsupported("mode '" + mode + "'"));
    return false;
  }
  return true;
}

bool parse_coordinate_mode(NodeContext& ctx, fb::ResizeAttrsT& a) {
  std::string s = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  using C = fb::CoordinateTransform;
  static const std::pair<const char*, C> kModes[] = {
      {"half_pixel", C::HalfPixel},         {"asymmetric", C::Asymmetric},
      {"pytorch_half_pixel", C::PytorchHalfPixel}, {"align_corners", C::AlignCorners},
      {"tf_crop_and_resize", C::TfCropAndResize}, {"half_pixel_symmetric", C::HalfPixelSymmetric}};
  for (const auto& [name, value] : kModes) {
    if (s == name) {
      a.coordinate_transformation_mode = value;
      return true;
    }
  }
  ctx.fail(ctx.unsupported("coordinate_transformation_mode '" + s + "'"));
  return false;
}

bool parse_nearest_mode(NodeContext& ctx, fb::ResizeAttrsT& a) {
  std::string s = ctx.attr_string("nearest_mode", "round_prefer_floor");
  using N = fb::NearestMode;
  static const std::pair<const char*, N> kModes[] = {
      {"round_prefer_floor", N::RoundPreferFloor}, {"round_prefer_ceil", N::RoundPreferCeil},
      {"floor", N::Floor}, {"ceil", N::Ceil}};
  for (const auto& [name, value] : kModes) {
    if (s == name) {
      a.nearest_mode = value;
      return true;
    }
  }
  ctx.fail(ctx.unsupported("nearest_mode '" + s + "'"));
  return false;
}

// Before opset 11 nearest sampling truncated the source coordinate when
// upsampling (onnxruntime also rounds up when downsampling); both need the
// scales at conversion time.
fb::NearestMode legacy_nearest_mode(NodeContext& ctx, const std::vector<float>& scales) {
  bool down = false, up = false;
  for (float s : scales) {
    down = down || s < 1.0f;
    up = up || s > 1.0f;
  }
  if (down && up) ctx.fail(ctx.unsupported("nearest resize that shrinks some axes and grows others (opset < 11)"));
  return down ? fb::NearestMode::Ceil : fb::NearestMode::Floor;
}

std::vector<float> float_values(const Tensor& t) {
  std::vector<float> out;
  for (double d : t.to_doubles()) out.push_back(static_cast<float>(d));
  return out;
}

int float_constant(NodeContext& ctx, const std::vector<float>& values, const std::string& suffix) {
  return ctx.constant(Tensor::from_vector<float>({static_cast<int64_t>(values.size())}, values), suffix);
}

// Opset 10 Resize and Upsample: X and scales only, asymmetric coordinates.
Status emit_legacy(NodeContext& ctx, int x, int scales_value, const std::vector<float>* scales) {
  fb::ResizeAttrsT a;
  if (!parse_mode(ctx, a)) return ctx.status();
  a.coordinate_transformation_mode = fb::CoordinateTransform::Asymmetric;
  // Scales known only at run time: assume upsampling, what Upsample is for
  // and what ONNX's reference implements (repeat, i.e. floor).
  if (a.mode == fb::ResizeMode::Nearest) a.nearest_mode = scales ? legacy_nearest_mode(ctx, *scales) : fb::NearestMode::Floor;
  ctx.emit(fb::OpType::Resize, {x, -1, scales_value}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_upsample(NodeContext& ctx) {
  if (ctx.opset() < 7) return ctx.unsupported("Upsample before opset 7 (width_scale/height_scale) is not supported");
  int x = ctx.input(0);
  if (ctx.opset() < 9) {
    std::vector<float> scales = ctx.attr_floats("scales");
    return emit_legacy(ctx, x, float_constant(ctx, scales, "scales"), &scales);
  }
  const Tensor* t = ctx.constant_input(1);
  std::vector<float> scales = t ? float_values(*t) : std::vector<float>{};
  return emit_legacy(ctx, x, ctx.input(1), t ? &scales : nullptr);
}

// Gathers a full-rank vector from `given` (one entry per listed axis) and
// `filler` (used for the other axes): full[k] = given[pos of k in axes], or
// filler[filler_index(k)]. Built from ops (Concat + Gather) so it works when
// `given` is only known at run time; with constants it folds away.
int scatter_axes(NodeContext& ctx, int given, int filler, const std::vector<int64_t>& axes, int64_t rank,
                 int64_t given_len, const std::function<int64_t(int64_t)>& filler_index, const std::string& what) {
  int joined = ctx.temp(what + "_joined");
  fb::AxisAttrsT axis0;
  axis0.axis = 0;
  ctx.emit(fb::OpType::Concat, {given, filler}, {joined}, axis0);
  std::vector<int64_t> index;
  for (int64_t k = 0; k < rank; ++k) {
    auto it = std::find(axes.begin(), axes.end(), k);
    index.push_back(it != axes.end() ? it - axes.begin() : given_len + filler_index(k));
  }
  int full = ctx.temp(what + "_full_rank");
  ctx.emit(fb::OpType::Gather, {joined, ctx.constant_i64(index, what + "_index")}, {full}, axis0);
  return full;
}

// keep_aspect_ratio_policy: one scale for all listed axes, the smallest
// (not_larger) or largest (not_smaller) of sizes / input size, and sizes
// round(scale * input size) rounding half up. Mote's Resize then derives its
// per-axis scale from the sizes, which can differ from ONNX's single scale
// in the last digits of the source coordinate.
int aspect_ratio_sizes(NodeContext& ctx, int x, int sizes, const std::vector<int64_t>& axes, bool not_larger) {
  fb::CastAttrsT to_f32;
  to_f32.to = DType::F32;
  fb::CastAttrsT to_i64;
  to_i64.to = DType::I64;
  fb::AxisAttrsT axis0;
  axis0.axis = 0;
  int shape = ctx.temp("input_shape"), in_dims = ctx.temp("input_dims"), in_f = ctx.temp("input_dims_f32");
  ctx.emit(fb::OpType::Shape, {x}, {shape});
  ctx.emit(fb::OpType::Gather, {shape, ctx.constant_i64(axes, "axes")}, {in_dims}, axis0);
  ctx.emit(fb::OpType::Cast, {in_dims}, {in_f}, to_f32);
  int req = ctx.temp("sizes_f32"), ratio = ctx.temp("ratios"), scale = ctx.temp("scale");
  ctx.emit(fb::OpType::Cast, {sizes}, {req}, to_f32);
  ctx.emit(fb::OpType::Div, {req, in_f}, {ratio});
  fb::ReduceAttrsT keep;
  keep.keepdims = true;
  ctx.emit(not_larger ? fb::OpType::ReduceMin : fb::OpType::ReduceMax, {ratio}, {scale}, keep);
  int scaled = ctx.temp("scaled"), shifted = ctx.temp("scaled_plus_half"), rounded = ctx.temp("rounded");
  ctx.emit(fb::OpType::Mul, {in_f, scale}, {scaled});
  ctx.emit(fb::OpType::Add, {scaled, ctx.scalar(DType::F32, 0.5, "half")}, {shifted});
  ctx.emit(fb::OpType::Floor, {shifted}, {rounded});
  int out = ctx.temp("aspect_sizes");
  ctx.emit(fb::OpType::Cast, {rounded}, {out}, to_i64);
  return out;
}

// Opset 18's 'axes' and keep_aspect_ratio_policy rewritten for Mote's
// Resize, which takes full-rank roi, scales or sizes.
struct ResizeInputs {
  int roi = -1, scales = -1, sizes = -1;
};
ResizeInputs resolve_axes(NodeContext& ctx, int x, ResizeInputs in) {
  std::vector<int64_t> axes = ctx.attr_ints("axes");
  std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
  if (axes.empty() && (policy == "stretch" || in.sizes < 0)) return in;
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    ctx.fail(ctx.invalid("unknown keep_aspect_ratio_policy '" + policy + "'"));
    return in;
  }
  auto rank = ctx.input_rank(0);
  if (!rank) {
    ctx.fail(ctx.unsupported("'axes' and keep_aspect_ratio_policy need the rank of X"));
    return in;
  }
  if (axes.empty()) {
    for (int64_t k = 0; k < *rank; ++k) axes.push_back(k);
  }
  for (int64_t& axis : axes) {
    if (axis < 0) axis += *rank;
    if (axis < 0 || axis >= *rank) {
      ctx.fail(ctx.invalid("axis out of range for rank " + std::to_string(*rank)));
      return in;
    }
  }
  const int64_t n = static_cast<int64_t>(axes.size());
  if (in.roi >= 0) {
    // roi is [starts..., ends...]: unlisted axes take the whole range [0, 1].
    std::vector<int64_t> index;
    for (int half = 0; half < 2; ++half) {
      for (int64_t k = 0; k < *rank; ++k) {
        auto it = std::find(axes.begin(), axes.end(), k);
        index.push_back(it != axes.end() ? half * n + (it - axes.begin()) : 2 * n + half);
      }
    }
    int joined = ctx.temp("roi_joined"), full = ctx.temp("roi_full_rank");
    fb::AxisAttrsT axis0;
    axis0.axis = 0;
    int bounds = ctx.constant(Tensor::from_vector<float>({2}, {0.0f, 1.0f}), "roi_bounds");
    ctx.emit(fb::OpType::Concat, {in.roi, bounds}, {joined}, axis0);
    ctx.emit(fb::OpType::Gather, {joined, ctx.constant_i64(index, "roi_index")}, {full}, axis0);
    in.roi = full;
  }
  if (in.scales >= 0) {
    int ones = ctx.constant(Tensor::from_vector<float>({1}, {1.0f}), "scale_one");
    in.scales = scatter_axes(ctx, in.scales, ones, axes, *rank, n, [](int64_t) { return 0; }, "scales");
  }
  if (in.sizes >= 0) {
    int sizes = policy == "stretch" ? in.sizes : aspect_ratio_sizes(ctx, x, in.sizes, axes, policy == "not_larger");
    int shape = ctx.temp("input_shape_for_sizes");
    ctx.emit(fb::OpType::Shape, {x}, {shape});
    in.sizes = scatter_axes(ctx, sizes, shape, axes, *rank, n, [](int64_t k) { return k; }, "sizes");
  }
  return in;
}

Status map_resize(NodeContext& ctx) {
  int x = ctx.input(0);
  if (ctx.opset() < 11) {
    const Tensor* t = ctx.constant_input(1);
    std::vector<float> scales = t ? float_values(*t) : std::vector<float>{};
    return emit_legacy(ctx, x, ctx.input(1), t ? &scales : nullptr);
  }
  fb::ResizeAttrsT a;
  if (!parse_mode(ctx, a) || !parse_coordinate_mode(ctx, a) || !parse_nearest_mode(ctx, a)) return ctx.status();
  a.antialias = ctx.attr_int("antialias", 0) != 0;
  if (a.antialias && a.mode == fb::ResizeMode::Nearest) return ctx.invalid("antialias=1 needs mode linear or cubic");
  a.cubic_coeff_a = ctx.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
  a.extrapolation_value = ctx.attr_float("extrapolation_value", 0.0f);
  ResizeInputs in{ctx.optional_input(1), ctx.optional_input(2), ctx.optional_input(3)};
  // An empty constant stands for "not given" in opsets 11-12.
  if (const Tensor* t = ctx.constant_input(1); t && t->numel() == 0) in.roi = -1;
  if (const Tensor* t = ctx.constant_input(2); t && t->numel() == 0) in.scales = -1;
  in = resolve_axes(ctx, x, in);
  std::vector<int> inputs = {x, in.roi, in.scales, in.sizes};
  trim_omitted(inputs);
  ctx.emit(fb::OpType::Resize, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Resize, map_resize);
MOTE_ONNX_OP(Upsample, map_upsample);

}  // namespace mote::convert
