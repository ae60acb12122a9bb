// The geometry of a 2-D convolution over one image plane (a 1-D one is a
// plane of height 1), as the kernels that compute straight from a padded copy
// of the input take it: depthwise (conv_depthwise, qdepthwise) and the direct
// kernel for inputs of few channels (conv_direct).
#pragma once

#include <cstdint>

#include "runtime/cpu/tile_activation.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

struct PlaneConvShape {
  int64_t in_h, in_w;
  int64_t out_h, out_w;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t dilation_h, dilation_w;
  int64_t pad_top, pad_left;
  // Applied as the results are stored (Relu, Clip); +-inf for none.
  float clamp_min, clamp_max;
  // Applied after the clamp by the depthwise channel-block tiles only
  // (depthwise_channel_block); every other kernel leaves it to a pass.
  TileActivation activation = TileActivation::kNone;
};

// Width strides the padded-plane layout serves (padded_plane-inl.h): rows are
// split by column parity for stride 2 so that every tap of an output row is
// one contiguous load; other strides would need a split per residue.
inline bool plane_conv_supports_stride(int64_t stride_w) { return stride_w == 1 || stride_w == 2; }

// The last two spatial dimensions of g (spatial_rank 1 or 2).
inline PlaneConvShape plane_conv_shape(const ConvGeometry& g, float clamp_min, float clamp_max) {
  return {g.in_size[1],   g.in_size[2],   g.out_size[1],  g.out_size[2],  g.kernel[1], g.kernel[2], g.stride[1],
          g.stride[2],    g.dilation[1],  g.dilation[2],  g.pad_begin[1], g.pad_begin[2], clamp_min, clamp_max};
}

}  // namespace mote::cpu
