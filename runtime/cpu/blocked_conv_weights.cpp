#include "runtime/cpu/blocked_conv_weights.hpp"

namespace mote::cpu {

BlockedConvWeights pack_blocked_conv_weights(const float* w, const float* bias, int64_t out_channels,
                                             int64_t in_channels, int64_t kernel_volume, int64_t lanes) {
  BlockedConvWeights p;
  p.in_channels = in_channels;
  p.out_channels = out_channels;
  p.kernel_volume = kernel_volume;
  p.lanes = lanes;
  const int64_t out_blocks = (out_channels + lanes - 1) / lanes;
  p.weights.assign(static_cast<size_t>(out_blocks * p.block_floats()), 0.0f);
  p.bias.assign(static_cast<size_t>(out_blocks * lanes), 0.0f);
  for (int64_t co = 0; co < out_channels; ++co) {
    float* out_block = p.weights.data() + co / lanes * p.block_floats() + co % lanes;
    for (int64_t ci = 0; ci < in_channels; ++ci) {
      float* dst = out_block + (ci / lanes * kernel_volume * lanes + ci % lanes) * lanes;
      const float* src = w + (co * in_channels + ci) * kernel_volume;
      for (int64_t k = 0; k < kernel_volume; ++k) dst[k * lanes * lanes] = src[k];
    }
    if (bias) p.bias[static_cast<size_t>(co)] = bias[co];
  }
  return p;
}

}  // namespace mote::cpu
