// Weights of the convolutions that write the channel-blocked layout
// (runtime/core/layout.hpp) from tiles of pixels x output blocks:
// pointwise_blocked (1x1) and conv_blocked (any kernel). A tile multiplies
// one input value per pixel by one vector of output-channel weights per
// block, so the weights are stored with the output channels of a block
// side by side, in the order the tiles walk the input: channel, then tap.
#pragma once

#include <cstdint>
#include <vector>

namespace mote::cpu {

// W [C_out, C_in, kh, kw] as [output block][input block][kh * kw][lanes
// input channels][lanes output channels], zeros past C_in and C_out; the
// bias (zeros when absent) padded to whole blocks likewise. Within an input
// block a tap's weights are lanes x lanes consecutive floats, so a tile
// reading a blocked input walks both at constant offsets (a 1x1 layer's
// are [output block][C_in rounded up][lanes]).
struct BlockedConvWeights {
  std::vector<float> weights;
  std::vector<float> bias;
  int64_t in_channels = 0, out_channels = 0, kernel_volume = 0, lanes = 0;

  // Floats from one output block's weights to the next.
  int64_t block_floats() const { return (in_channels + lanes - 1) / lanes * kernel_volume * lanes * lanes; }

  bool fits(int64_t in, int64_t out, int64_t volume, int64_t block) const {
    return in_channels == in && out_channels == out && kernel_volume == volume && lanes == block && !weights.empty();
  }
};

// W of one group, [out_channels, in_channels, kernel_volume]; `bias` may be
// null. `lanes` is the plan's channel block.
BlockedConvWeights pack_blocked_conv_weights(const float* w, const float* bias, int64_t out_channels,
                                             int64_t in_channels, int64_t kernel_volume, int64_t lanes);

}  // namespace mote::cpu
