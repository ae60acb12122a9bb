// Conv's gradients, any group count and 1 to 3 spatial dims:
//   dX = ConvTranspose(dY, W) with the Conv's strides, pads, dilations and
//        group (W's layout [M, C/group, k...] is exactly ConvTranspose's
//        [in, out/group, k...]); output_padding adds back the rows a strided
//        Conv never read, so dX has X's size.
//   dW = ConvGradWeight(X, dY)  (runtime/ops/gradients.cpp)
//   dB = dY summed over batch and spatial axes.
// Attributes are written out explicitly (auto_pad resolved to pads), so the
// backward ops do not depend on how the forward ones were spelled.
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status conv_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const Shape x = g.shape(c.in(0));
  const Shape w = g.shape(c.in(1));
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(c.op), x, w);
  if (!resolved.ok()) return c.fail(resolved.status().message());
  const ConvGeometry& geo = *resolved;
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
  if (c.wants(2)) {
    std::vector<int64_t> axes = {0};
    for (int i = 0; i < r; ++i) axes.push_back(2 + i);
    c.set(2, g.reduce_sum(c.dy(), axes, /*keepdims=*/false));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Conv, mote::conv_grad);
