// The geometry of a convolution or transposed convolution: ConvAttrs resolved
// against the shapes of X and W (defaults filled in, auto_pad turned into
// explicit pads, output sizes computed), validated once here for the shape
// functions and the kernels alike.
//
// Spatial dimensions are stored right-aligned in three slots (depth, height,
// width): a 1-D convolution has depth and height 1, kernel 1, stride 1,
// dilation 1 and no padding there, so every kernel can loop over three
// spatial dimensions without special cases.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/core/attrs.hpp"
#include "runtime/core/op_def.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

struct ConvGeometry {
  static constexpr int kMaxSpatial = 3;
  using Dims = std::array<int64_t, kMaxSpatial>;

  int spatial_rank = 0;  // 1, 2 or 3: the rank of X minus 2
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  Dims in_size{1, 1, 1};
  Dims out_size{1, 1, 1};
  Dims kernel{1, 1, 1};
  Dims stride{1, 1, 1};
  Dims dilation{1, 1, 1};
  // Padding before and after each spatial dimension. Always >= 0 for Conv; a
  // ConvTranspose whose output_shape is larger than its natural size gets
  // negative pads, meaning output positions no input reaches.
  Dims pad_begin{0, 0, 0};
  Dims pad_end{0, 0, 0};

  int64_t in_channels_per_group() const { return in_channels / group; }
  int64_t out_channels_per_group() const { return out_channels / group; }
  int64_t in_pixels() const { return in_size[0] * in_size[1] * in_size[2]; }
  int64_t out_pixels() const { return out_size[0] * out_size[1] * out_size[2]; }
  int64_t kernel_volume() const { return kernel[0] * kernel[1] * kernel[2]; }
  // The output shape [N, C_out, spatial...].
  Shape output_shape() const;
};

// Conv: X [N, C, D...], W [M, C/group, k...], output [N, M, out...].
// Errors (invalid_model) name the attribute or tensor at fault.
Result<ConvGeometry> resolve_conv(const fb::ConvAttrsT& attrs, const Shape& x, const Shape& w);

// ConvTranspose: X [N, C, D...], W [C, M/group, k...], output [N, M, out...],
// with output_padding and output_shape as in ONNX.
Result<ConvGeometry> resolve_conv_transpose(const fb::ConvAttrsT& attrs, const Shape& x,
                                            const Shape& w);

// The shape function of Conv and ConvTranspose, which differ only in how the
// geometry is resolved: float dtypes, geometry, bias of one value per output
// channel.
using ConvResolver = Result<ConvGeometry> (*)(const fb::ConvAttrsT&, const Shape&, const Shape&);
Status infer_conv_output(ShapeContext& ctx, ConvResolver resolve);

}  // namespace mote
