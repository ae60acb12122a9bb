#include "runtime/ops/conv_geometry.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/ops/float_inputs.hpp"

namespace mote {
namespace {

// Attribute values beyond this are certainly a corrupt model, and keeping
// every extent below it keeps the size arithmetic far from int64 overflow.
constexpr int64_t kMaxExtent = int64_t{1} << 30;

std::string list_to_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Reads a per-spatial-dimension attribute into the right-aligned slots of
// `out`; an empty list keeps the defaults already there.
Status read_spatial(const std::vector<int64_t>& values, const char* name, int spatial_rank,
                    int64_t min_value, ConvGeometry::Dims& out) {
  if (values.empty()) return {};
  if (static_cast<int>(values.size()) != spatial_rank) {
    return invalid_model(std::string(name) + " " + list_to_string(values) + " has " +
                         std::to_string(values.size()) + " values, expected " +
                         std::to_string(spatial_rank) + " (one per spatial dimension)");
  }
  int offset = ConvGeometry::kMaxSpatial - spatial_rank;
  for (int i = 0; i < spatial_rank; ++i) {
    int64_t v = values[static_cast<size_t>(i)];
    if (v < min_value || v > kMaxExtent) {
      return invalid_model(std::string(name) + " " + list_to_string(values) + " holds " +
                           std::to_string(v) + ", expected a value in [" + std::to_string(min_value) +
                           ", " + std::to_string(kMaxExtent) + "]");
    }
    out[static_cast<size_t>(offset + i)] = v;
  }
  return {};
}

// What Conv and ConvTranspose share: ranks, spatial sizes, kernel, strides,
// dilations, group and explicit pads (auto_pad is applied by the callers).
Status resolve_common(const fb::ConvAttrsT& attrs, const Shape& x, const Shape& w,
                      ConvGeometry& g) {
  if (x.size() < 3 || x.size() > 5) {
    return invalid_model("input X has shape " + shape_to_string(x) +
                         ", expected rank 3 to 5 ([N, C, spatial...] with 1 to 3 spatial dimensions)");
  }
  if (w.size() != x.size()) {
    return invalid_model("weight W has shape " + shape_to_string(w) + " but X has rank " +
                         std::to_string(x.size()) + "; W must have the same rank");
  }
  g.spatial_rank = static_cast<int>(x.size()) - 2;
  const int offset = ConvGeometry::kMaxSpatial - g.spatial_rank;
  if (x[0] < 0 || x[0] > kMaxExtent) return invalid_model("input X has an invalid batch size in " + shape_to_string(x));
  g.batch = x[0];
  for (size_t i = 1; i < x.size(); ++i) {
    if (x[i] < 1 || x[i] > kMaxExtent) {
      return invalid_model("input X has an invalid dimension in " + shape_to_string(x));
    }
  }
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] < 1 || w[i] > kMaxExtent) {
      return invalid_model("weight W has an invalid dimension in " + shape_to_string(w));
    }
  }
  if (shape_numel(x) < 0 || shape_numel(w) < 0) {
    return invalid_model("X " + shape_to_string(x) + " or W " + shape_to_string(w) + " is too large");
  }
  g.in_channels = x[1];
  for (int i = 0; i < g.spatial_rank; ++i) {
    g.in_size[static_cast<size_t>(offset + i)] = x[static_cast<size_t>(2 + i)];
    g.kernel[static_cast<size_t>(offset + i)] = w[static_cast<size_t>(2 + i)];
  }

  if (!attrs.kernel_shape.empty()) {
    std::vector<int64_t> from_w(w.begin() + 2, w.end());
    if (attrs.kernel_shape != from_w) {
      return invalid_model("kernel_shape " + list_to_string(attrs.kernel_shape) +
                           " does not match the spatial dimensions of W " + shape_to_string(w));
    }
  }
  MOTE_RETURN_IF_ERROR(read_spatial(attrs.strides, "strides", g.spatial_rank, 1, g.stride));
  MOTE_RETURN_IF_ERROR(read_spatial(attrs.dilations, "dilations", g.spatial_rank, 1, g.dilation));

  if (attrs.group < 1 || attrs.group > g.in_channels || g.in_channels % attrs.group != 0) {
    return invalid_model("group " + std::to_string(attrs.group) + " must be at least 1 and divide the " +
                         std::to_string(g.in_channels) + " input channels of X");
  }
  g.group = attrs.group;

  if (!attrs.pads.empty() && attrs.auto_pad == fb::AutoPad::NotSet) {
    if (static_cast<int>(attrs.pads.size()) != 2 * g.spatial_rank) {
      return invalid_model("pads " + list_to_string(attrs.pads) + " has " + std::to_string(attrs.pads.size()) +
                           " values, expected " + std::to_string(2 * g.spatial_rank) +
                           " (begin and end of each spatial dimension)");
    }
    std::vector<int64_t> begin(attrs.pads.begin(), attrs.pads.begin() + g.spatial_rank);
    std::vector<int64_t> end(attrs.pads.begin() + g.spatial_rank, attrs.pads.end());
    MOTE_RETURN_IF_ERROR(read_spatial(begin, "pads", g.spatial_rank, 0, g.pad_begin));
    MOTE_RETURN_IF_ERROR(read_spatial(end, "pads", g.spatial_rank, 0, g.pad_end));
  }
  return {};
}

int64_t dilated_kernel(const ConvGeometry& g, size_t i) { return (g.kernel[i] - 1) * g.dilation[i] + 1; }

// Splits `total` padding between begin and end; the odd unit goes to the end
// when `extra_at_end`. C++ division truncates, as in ONNX's own shape
// inference, which matters for the negative totals of ConvTranspose.
void split_padding(int64_t total, bool extra_at_end, int64_t& begin, int64_t& end) {
  // Floor division, as ONNX's reference computes it: an output_shape larger
  // than the natural size gives a negative total, and the extra row or
  // column must then land at the end (test_convtranspose_output_shape).
  int64_t small = total >= 0 ? total / 2 : -((-total + 1) / 2);
  begin = extra_at_end ? small : total - small;
  end = total - begin;
}

// Rejects outputs whose element count overflows int64.
Result<ConvGeometry> checked_size(const ConvGeometry& g) {
  if (shape_numel(g.output_shape()) < 0) {
    return invalid_model("output shape " + shape_to_string(g.output_shape()) + " is too large");
  }
  return g;
}

}  // namespace

Shape ConvGeometry::output_shape() const {
  Shape s = {batch, out_channels};
  for (int i = kMaxSpatial - spatial_rank; i < kMaxSpatial; ++i) s.push_back(out_size[static_cast<size_t>(i)]);
  return s;
}

Result<ConvGeometry> resolve_conv(const fb::ConvAttrsT& attrs, const Shape& x, const Shape& w) {
  ConvGeometry g;
  MOTE_RETURN_IF_ERROR(resolve_common(attrs, x, w, g));
  if (w[1] * g.group != g.in_channels) {
    return invalid_model("weight W " + shape_to_string(w) + " has " + std::to_string(w[1]) +
                         " input channels per group, but X has " + std::to_string(g.in_channels) +
                         " channels in " + std::to_string(g.group) + " group(s)");
  }
  g.out_channels = w[0];
  if (g.out_channels % g.group != 0) {
    return invalid_model("weight W " + shape_to_string(w) + " has " + std::to_string(g.out_channels) +
                         " output channels, not a multiple of group " + std::to_string(g.group));
  }
  for (size_t i = 0; i < static_cast<size_t>(ConvGeometry::kMaxSpatial); ++i) {
    int64_t k = dilated_kernel(g, i);
    switch (attrs.auto_pad) {
      case fb::AutoPad::SameUpper:
      case fb::AutoPad::SameLower: {
        g.out_size[i] = (g.in_size[i] + g.stride[i] - 1) / g.stride[i];
        int64_t total = std::max<int64_t>(0, (g.out_size[i] - 1) * g.stride[i] + k - g.in_size[i]);
        split_padding(total, attrs.auto_pad == fb::AutoPad::SameUpper, g.pad_begin[i], g.pad_end[i]);
        break;
      }
      case fb::AutoPad::Valid:
        g.pad_begin[i] = g.pad_end[i] = 0;
        [[fallthrough]];
      default: {
        int64_t span = g.in_size[i] + g.pad_begin[i] + g.pad_end[i];
        if (span < k) {
          return invalid_model("input X " + shape_to_string(x) + " (with padding) is smaller than the dilated kernel " +
                               std::to_string(k) + " in a spatial dimension");
        }
        g.out_size[i] = (span - k) / g.stride[i] + 1;
      }
    }
  }
  return checked_size(g);
}

Result<ConvGeometry> resolve_conv_transpose(const fb::ConvAttrsT& attrs, const Shape& x, const Shape& w) {
  ConvGeometry g;
  MOTE_RETURN_IF_ERROR(resolve_common(attrs, x, w, g));
  if (w[0] != g.in_channels) {
    return invalid_model("weight W " + shape_to_string(w) + " must have as many rows as X has channels (" +
                         std::to_string(g.in_channels) + ")");
  }
  g.out_channels = w[1] * g.group;

  ConvGeometry::Dims output_padding{0, 0, 0};
  MOTE_RETURN_IF_ERROR(read_spatial(attrs.output_padding, "output_padding", g.spatial_rank, 0, output_padding));
  for (size_t i = 0; i < static_cast<size_t>(ConvGeometry::kMaxSpatial); ++i) {
    if (output_padding[i] != 0 && output_padding[i] >= std::max(g.stride[i], g.dilation[i])) {
      return invalid_model("output_padding " + list_to_string(attrs.output_padding) +
                           " must be smaller than the stride or the dilation of its dimension");
    }
  }

  // output_shape may list the spatial dimensions only, or the whole shape.
  std::vector<int64_t> requested = attrs.output_shape;
  if (static_cast<int>(requested.size()) == g.spatial_rank + 2) {
    requested.erase(requested.begin(), requested.begin() + 2);
  }
  ConvGeometry::Dims requested_size{1, 1, 1};
  MOTE_RETURN_IF_ERROR(read_spatial(requested, "output_shape", g.spatial_rank, 1, requested_size));

  for (size_t i = 0; i < static_cast<size_t>(ConvGeometry::kMaxSpatial); ++i) {
    int64_t natural = g.stride[i] * (g.in_size[i] - 1) + output_padding[i] + dilated_kernel(g, i);
    bool same = attrs.auto_pad == fb::AutoPad::SameUpper || attrs.auto_pad == fb::AutoPad::SameLower;
    if (!requested.empty() || same) {
      // The output size is decided first and pads follow from it (ONNX:
      // total_padding = natural - output_shape; SAME_UPPER puts the odd unit
      // at the end, SAME_LOWER and NOTSET at the beginning).
      g.out_size[i] = !requested.empty() ? requested_size[i] : g.in_size[i] * g.stride[i];
      split_padding(natural - g.out_size[i], attrs.auto_pad == fb::AutoPad::SameUpper, g.pad_begin[i],
                    g.pad_end[i]);
    } else {
      if (attrs.auto_pad == fb::AutoPad::Valid) g.pad_begin[i] = g.pad_end[i] = 0;
      g.out_size[i] = natural - g.pad_begin[i] - g.pad_end[i];
      if (g.out_size[i] < 1) {
        return invalid_model("pads " + list_to_string(attrs.pads) + " remove the whole output of a spatial dimension");
      }
    }
  }
  return checked_size(g);
}

Status infer_conv_output(ShapeContext& ctx, ConvResolver resolve) {
  MOTE_RETURN_IF_ERROR(require_same_float_dtype(ctx, {"X", "W", "B", "R"}));
  auto g = resolve(attrs<fb::ConvAttrsT>(ctx.op), ctx.shape(0), ctx.shape(1));
  if (!g.ok()) return ctx.fail(g.status().message());
  if (ctx.has_input(2) && ctx.shape(2) != Shape{g->out_channels}) {
    return ctx.fail("bias B has shape " + shape_to_string(ctx.shape(2)) + ", expected [" +
                    std::to_string(g->out_channels) + "] (one value per output channel)");
  }
  ctx.set_output(0, ctx.dtype(0), g->output_shape());
  return {};
}

}  // namespace mote
