// Resize: nearest-neighbour, N-D linear or cubic resampling.
#include "runtime/ops/resize.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

Status check_resize_supported(const fb::ResizeAttrsT& a) {
  if (a.mode == fb::ResizeMode::Cubic) return unsupported("mode 'cubic' is not supported (nearest and linear are)");
  if (a.antialias) return unsupported("antialias is not supported");
  if (a.mode != fb::ResizeMode::Nearest && a.mode != fb::ResizeMode::Linear) {
    return unsupported("unknown mode " + std::to_string(static_cast<int>(a.mode)));
  }
  if (a.coordinate_transformation_mode == fb::CoordinateTransform::TfCropAndResize) {
    return unsupported("coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  }
  if (fb::EnumNameCoordinateTransform(a.coordinate_transformation_mode)[0] == '\0') {
    return unsupported("unknown coordinate_transformation_mode " +
                       std::to_string(static_cast<int>(a.coordinate_transformation_mode)));
  }
  if (a.mode == fb::ResizeMode::Nearest && fb::EnumNameNearestMode(a.nearest_mode)[0] == '\0') {
    return unsupported("unknown nearest_mode " + std::to_string(static_cast<int>(a.nearest_mode)));
  }
  return {};
}

Status check_resize_valid(const fb::ResizeAttrsT& a) {
  if (a.antialias && a.mode == fb::ResizeMode::Nearest) return invalid_argument("antialias needs mode linear or cubic");
  fb::ResizeAttrsT optimised = a;
  optimised.antialias = false;
  if (a.mode == fb::ResizeMode::Cubic) optimised.mode = fb::ResizeMode::Linear;
  if (a.coordinate_transformation_mode == fb::CoordinateTransform::TfCropAndResize) {
    optimised.coordinate_transformation_mode = fb::CoordinateTransform::HalfPixel;
  }
  return check_resize_supported(optimised);
}

bool resize_runs_on_codes(const fb::ResizeAttrsT& a) {
  return (a.mode == fb::ResizeMode::Nearest || (a.mode == fb::ResizeMode::Linear && !a.antialias)) &&
         a.coordinate_transformation_mode != fb::CoordinateTransform::TfCropAndResize;
}

CubicTaps resize_cubic_taps(double coordinate, double a) {
  // ONNX takes the taps nearest the coordinate, preferring the lower side:
  // at a whole coordinate x they are x-2 .. x+1 with weight 1 on x.
  double lower = std::floor(coordinate);
  double t = coordinate - lower;
  if (t == 0) {
    lower -= 1;
    t = 1;
  }
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 <= d < 2
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // d < 1
  return {static_cast<int64_t>(lower) - 1, {far(t + 1), near(t), near(1 - t), far(2 - t)}};
}

ResizeTaps resize_antialias_taps(double coordinate, double scale, const fb::ResizeAttrsT& a) {
  // Below scale 1 the kernel (support 1 for linear, 2 for cubic) widens by
  // 1 / scale; the taps are the 2 * ceil-ish(support / scale) elements nearest
  // the coordinate, preferring the lower side as resize_cubic_taps does.
  const double s = std::min(scale, 1.0);
  double base = std::floor(coordinate);
  if (base == coordinate) base -= 1;
  const double ratio = coordinate - base;
  const bool cubic = a.mode == fb::ResizeMode::Cubic;
  const auto start = static_cast<int64_t>(std::floor(-(cubic ? 2.0 : 1.0) / s) + 1);
  const int64_t count = 2 - 2 * start;
  const double A = a.cubic_coeff_a;
  auto kernel = [&](double d) {
    d = std::fabs(d);
    if (!cubic) return std::max(0.0, 1 - d);
    if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
    return d < 2 ? ((A * d - 5 * A) * d + 8 * A) * d - 4 * A : 0.0;
  };
  ResizeTaps taps{static_cast<int64_t>(base) + start, {}};
  double total = 0;
  for (int64_t j = 0; j < count; ++j) {
    taps.weight.push_back(kernel(s * (static_cast<double>(start + j) - ratio)));
    total += taps.weight.back();
  }
  for (double& w : taps.weight) w /= total;
  return taps;
}

double resize_crop_coordinate(int64_t x, const ResizeAxis& axis, double start, double end) {
  const double extent = static_cast<double>(axis.in - 1);
  if (axis.out > 1) return start * extent + static_cast<double>(x) * (end - start) * extent / static_cast<double>(axis.out - 1);
  return 0.5 * (start + end) * extent;
}

Result<std::vector<ResizeAxis>> resize_axes(const Shape& in, const Tensor* scales, const Tensor* sizes) {
  if (scales && scales->numel() == 0) scales = nullptr;
  if (sizes && sizes->numel() == 0) sizes = nullptr;
  if ((scales == nullptr) == (sizes == nullptr)) {
    return invalid_argument("exactly one of 'scales' (input 2) and 'sizes' (input 3) must be given");
  }
  const size_t rank = in.size();
  std::vector<ResizeAxis> axes(rank);
  if (scales) {
    if (scales->dtype() != DType::F32) {
      return invalid_argument(std::string("'scales' must be f32, not ") + dtype_name(scales->dtype()));
    }
    if (static_cast<size_t>(scales->numel()) != rank) {
      return invalid_argument("'scales' has " + std::to_string(scales->numel()) + " entries for an input of rank " +
                              std::to_string(rank));
    }
    for (size_t k = 0; k < rank; ++k) {
      const double scale = scales->data<float>()[k];
      if (!(scale > 0) || !std::isfinite(scale)) {
        return invalid_argument("'scales'[" + std::to_string(k) + "] must be positive, not " + std::to_string(scale));
      }
      const double length = static_cast<double>(in[k]) * scale;
      if (length >= 9.0e18) return invalid_argument("'scales'[" + std::to_string(k) + "] overflows the output");
      axes[k] = {in[k], static_cast<int64_t>(std::floor(length)), scale, length};
    }
  } else {
    MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> out, read_int_list(*sizes, "'sizes' (input 3)"));
    if (out.size() != rank) {
      return invalid_argument("'sizes' has " + std::to_string(out.size()) + " entries for an input of rank " +
                              std::to_string(rank));
    }
    for (size_t k = 0; k < rank; ++k) {
      if (out[k] < 0) return invalid_argument("'sizes'[" + std::to_string(k) + "] is negative");
      if (in[k] == 0 && out[k] != 0) {
        return invalid_argument("axis " + std::to_string(k) + " is empty and cannot be resized to " +
                                std::to_string(out[k]));
      }
      const double scale = in[k] == 0 ? 1.0 : static_cast<double>(out[k]) / static_cast<double>(in[k]);
      axes[k] = {in[k], out[k], scale, static_cast<double>(out[k])};
    }
  }
  return axes;
}

double resize_source_coordinate(fb::CoordinateTransform mode, int64_t x_out, const ResizeAxis& axis) {
  const double x = static_cast<double>(x_out);
  switch (mode) {
    case fb::CoordinateTransform::Asymmetric:
      return x / axis.scale;
    case fb::CoordinateTransform::AlignCorners:
      return axis.resized_length == 1 ? 0.0
                                      : x * static_cast<double>(axis.in - 1) / (axis.resized_length - 1);
    case fb::CoordinateTransform::PytorchHalfPixel:
      return axis.resized_length > 1 ? (x + 0.5) / axis.scale - 0.5 : 0.0;
    case fb::CoordinateTransform::HalfPixelSymmetric: {
      // Centres the sampled window when `out` was rounded down from
      // resized_length.
      const double adjustment = static_cast<double>(axis.out) / axis.resized_length;
      const double offset = static_cast<double>(axis.in) / 2 * (1 - adjustment);
      return offset + (x + 0.5) / axis.scale - 0.5;
    }
    case fb::CoordinateTransform::HalfPixel:
    default:
      return (x + 0.5) / axis.scale - 0.5;
  }
}

int64_t resize_nearest_index(fb::NearestMode mode, double coordinate, int64_t in) {
  const double lower = std::floor(coordinate);
  const double fraction = coordinate - lower;
  bool up = false;
  switch (mode) {
    case fb::NearestMode::RoundPreferFloor: up = fraction > 0.5; break;
    case fb::NearestMode::RoundPreferCeil: up = fraction >= 0.5; break;
    case fb::NearestMode::Floor: up = false; break;
    case fb::NearestMode::Ceil: up = fraction > 0; break;
  }
  const double index = std::clamp(lower + (up ? 1 : 0), 0.0, static_cast<double>(in - 1));
  return static_cast<int64_t>(index);
}

LinearTap resize_linear_tap(double coordinate, int64_t in) {
  const double lower = std::floor(coordinate);
  const double last = static_cast<double>(in - 1);
  return {static_cast<int64_t>(std::clamp(lower, 0.0, last)), static_cast<int64_t>(std::clamp(lower + 1, 0.0, last)),
          coordinate - lower};
}

namespace {

Status infer_resize(ShapeContext& ctx) {
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  if (Status s = check_resize_valid(a); !s.ok()) return Status(s.code(), ctx.fail(s.message()).message());
  // tf_crop_and_resize writes extrapolation_value, a float, outside the roi.
  if (a.coordinate_transformation_mode == fb::CoordinateTransform::TfCropAndResize && ctx.dtype(0) != DType::F32) {
    return Status(
        StatusCode::kUnsupported,
        ctx.fail(std::string("tf_crop_and_resize needs f32 data, not ") + dtype_name(ctx.dtype(0))).message());
  }
  const bool codes = (ctx.dtype(0) == DType::U8 || ctx.dtype(0) == DType::I8) && resize_runs_on_codes(a);
  if (a.mode != fb::ResizeMode::Nearest && ctx.dtype(0) != DType::F32 && !codes) {
    return Status(StatusCode::kUnsupported,
                  ctx.fail(std::string(a.mode == fb::ResizeMode::Linear ? "linear" : "cubic") +
                           " mode needs f32 data (linear: or 8-bit, without antialias or crop), not " +
                           dtype_name(ctx.dtype(0)))
                      .message());
  }
  if (ctx.rank(0) == 0) return ctx.fail("cannot resize a scalar");
  for (size_t i : {2, 3}) {
    if (ctx.has_input(i)) MOTE_RETURN_IF_ERROR(known_input_value(ctx, i, "input " + std::to_string(i)).status());
  }
  if (a.coordinate_transformation_mode == fb::CoordinateTransform::TfCropAndResize) {
    MOTE_ASSIGN_OR_RETURN(const Tensor* roi, known_input_value(ctx, 1, "'roi' (input 1)"));
    if (roi->dtype() != DType::F32 || roi->numel() != 2 * ctx.rank(0)) {
      return ctx.fail("tf_crop_and_resize needs an f32 roi of " + std::to_string(2 * ctx.rank(0)) +
                      " values (starts, then ends)");
    }
  }
  auto axes = resize_axes(ctx.shape(0), optional_value(ctx, 2), optional_value(ctx, 3));
  if (!axes.ok()) return ctx.fail(axes.status().message());
  Shape out;
  for (const ResizeAxis& axis : *axes) out.push_back(axis.out);
  if (shape_numel(out) < 0) return ctx.fail("output shape " + shape_to_string(out) + " overflows");
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Resize, {.min_inputs = 1, .max_inputs = 4, .value_inputs = 0b1110u, .infer = mote::infer_resize});
