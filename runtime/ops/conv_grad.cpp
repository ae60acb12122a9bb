// Conv's gradients, any group count and 1 to 3 spatial dims:
//   dX = ConvTranspose(dY, W) with the Conv's strides, pads, dilations and
//        group (W's layout [M, C/group, k...] is exactly ConvTranspose's
//        [in, out/group, k...]); output_padding adds back the rows a strided
//        Conv never read, so dX has X's size.
//   dW = ConvGradWeight(X, dY)  (runtime/ops/gradients.cpp)
//   dB = dY summed over batch and spatial axes.
// ConvTranspose's gradients, the same maths with the roles swapped (Y is a
// Conv's input gradient, so X is a Conv of Y's gradient):
//   dX = Conv(dY, W) with the ConvTranspose's strides, pads, dilations and
//        group (W [C, M/group, k...] is a Conv weight from M to C channels);
//   dW = ConvGradWeight(dY, X), X in the place of the Conv's output gradient;
//   dB = dY summed over batch and spatial axes.
// Attributes are written out explicitly (auto_pad resolved to pads), so the
// backward ops do not depend on how the forward ones were spelled.
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

// The resolved geometry as explicit Conv attributes (no auto_pad, no
// output_padding or output_shape).
fb::ConvAttrsT explicit_attrs(const ConvGeometry& geo) {
  const int r = geo.spatial_rank;
  fb::ConvAttrsT a;
  a.group = geo.group;
  for (int i = ConvGeometry::kMaxSpatial - r; i < ConvGeometry::kMaxSpatial; ++i) {
    a.kernel_shape.push_back(geo.kernel[i]);
    a.strides.push_back(geo.stride[i]);
    a.dilations.push_back(geo.dilation[i]);
    a.pads.push_back(geo.pad_begin[i]);
  }
  for (int i = ConvGeometry::kMaxSpatial - r; i < ConvGeometry::kMaxSpatial; ++i) a.pads.push_back(geo.pad_end[i]);
  return a;
}

int bias_grad(TrainGraph& g, int dy, int spatial_rank) {
  std::vector<int64_t> axes = {0};
  for (int i = 0; i < spatial_rank; ++i) axes.push_back(2 + i);
  return g.reduce_sum(dy, axes, /*keepdims=*/false);
}

Status conv_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const Shape x = g.shape(c.in(0));
  const Shape w = g.shape(c.in(1));
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(c.op), x, w);
  if (!resolved.ok()) return c.fail(resolved.status().message());
  const ConvGeometry& geo = *resolved;
  const int r = geo.spatial_rank;
  const fb::ConvAttrsT a = explicit_attrs(geo);

  if (c.wants(0)) {
    fb::ConvAttrsT t = a;
    for (int i = ConvGeometry::kMaxSpatial - r; i < ConvGeometry::kMaxSpatial; ++i) {
      const int64_t natural = geo.stride[i] * (geo.out_size[i] - 1) + (geo.kernel[i] - 1) * geo.dilation[i] + 1 -
                              geo.pad_begin[i] - geo.pad_end[i];
      t.output_padding.push_back(geo.in_size[i] - natural);
    }
    c.set(0, g.op1(fb::OpType::ConvTranspose, {c.dy(), c.in(1)}, t));
  }
  if (c.wants(1)) c.set(1, g.op1(fb::OpType::ConvGradWeight, {c.in(0), c.dy()}, a));
  if (c.wants(2)) c.set(2, bias_grad(g, c.dy(), r));
  return {};
}

Status conv_transpose_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const Shape x = g.shape(c.in(0));
  auto resolved = resolve_conv_transpose(attrs<fb::ConvAttrsT>(c.op), x, g.shape(c.in(1)));
  if (!resolved.ok()) return c.fail(resolved.status().message());
  const ConvGeometry& geo = *resolved;
  const fb::ConvAttrsT a = explicit_attrs(geo);
  // The Conv reading dY must land exactly on X's positions: its pads are the
  // ConvTranspose's, which an output_shape beyond the natural size makes
  // negative, and it must produce X's size (an output_padding at least the
  // stride, possible with a larger dilation, would give an extra row).
  for (int i = 0; i < ConvGeometry::kMaxSpatial; ++i) {
    if (geo.pad_begin[i] < 0 || geo.pad_end[i] < 0) {
      return c.fail("gradient of a ConvTranspose whose output_shape exceeds its natural size is not supported");
    }
    const int64_t span = geo.out_size[i] + geo.pad_begin[i] + geo.pad_end[i] - (geo.kernel[i] - 1) * geo.dilation[i] - 1;
    if (span / geo.stride[i] + 1 != geo.in_size[i]) {
      return c.fail("gradient of a ConvTranspose with output_padding >= stride is not supported");
    }
  }
  if (c.wants(0)) c.set(0, g.op1(fb::OpType::Conv, {c.dy(), c.in(1)}, a));
  if (c.wants(1)) c.set(1, g.op1(fb::OpType::ConvGradWeight, {c.dy(), c.in(0)}, a));
  if (c.wants(2)) c.set(2, bias_grad(g, c.dy(), geo.spatial_rank));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Conv, mote::conv_grad);
MOTE_GRAD(ConvTranspose, mote::conv_transpose_grad);
