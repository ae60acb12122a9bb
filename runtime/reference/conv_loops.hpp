// The loop nest of the reference convolutions, written once: every output
// element, and for each one every input tap inside the image (padding taps
// are skipped, as zeros).
#pragma once

#include <cstdint>

#include "runtime/ops/conv_geometry.hpp"

namespace mote::reference {

// The kernel offsets [first, last) along one axis whose input position
// (out * stride - pad + offset * dilation) lies inside [0, size): one run,
// since the position grows with the offset.
struct TapsInside {
  int64_t first = 0, last = 0;
};
inline TapsInside taps_inside(int64_t origin, int64_t dilation, int64_t kernel, int64_t size) {
  TapsInside r{0, kernel};
  while (r.first < r.last && origin + r.first * dilation < 0) ++r.first;
  while (r.last > r.first && origin + (r.last - 1) * dilation >= size) --r.last;
  return r;
}

// Calls element(m, yi, for_each_tap) for output channel m and flat output
// index yi of every output element; for_each_tap(tap) calls tap(xi, wi) with
// the flat indices of X and W of each tap that lies inside the image, in the
// order depth, row, column, channel. The ranges of taps inside the image and
// the index arithmetic are worked out once per output element and kernel
// position, not per tap, and the channels are the innermost loop, so a 1x1
// convolution is one loop. The op and network tests run the reference
// under ASan and qemu too; with the channel outermost and the bounds checked
// per tap it took 15 ns a tap, 95 % of the longest unit test
// (BlockedLayout.ChainsMatchTheReference, now 0.7 s instead of 3.7).
template <class Element>
void for_each_conv_output(const ConvGeometry& g, Element&& element) {
  const auto& in = g.in_size;
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const auto& dilation = g.dilation;
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();
  const int64_t x_channel = in[0] * in[1] * in[2];  // from one channel to the next
  const int64_t w_channel = k[0] * k[1] * k[2];
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      const int64_t x_first = (n * g.in_channels + (m / mg) * cg) * x_channel;
      const int64_t w_first = m * cg * w_channel;
      for (int64_t od = 0; od < out[0]; ++od) {
        const int64_t id0 = od * g.stride[0] - g.pad_begin[0];
        const TapsInside kd_range = taps_inside(id0, dilation[0], k[0], in[0]);
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const int64_t ih0 = oh * g.stride[1] - g.pad_begin[1];
          const TapsInside kh_range = taps_inside(ih0, dilation[1], k[1], in[1]);
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const int64_t iw0 = ow * g.stride[2] - g.pad_begin[2];
            const TapsInside kw_range = taps_inside(iw0, dilation[2], k[2], in[2]);
            auto for_each_tap = [&](auto&& tap) {
              for (int64_t kd = kd_range.first; kd < kd_range.last; ++kd) {
                const int64_t x_d = id0 + kd * dilation[0];
                for (int64_t kh = kh_range.first; kh < kh_range.last; ++kh) {
                  const int64_t x_h = (x_d * in[1] + ih0 + kh * dilation[1]) * in[2] + iw0;
                  const int64_t w_h = (kd * k[1] + kh) * k[2];
                  for (int64_t kw = kw_range.first; kw < kw_range.last; ++kw) {
                    const int64_t xi = x_first + x_h + kw * dilation[2];
                    const int64_t wi = w_first + w_h + kw;
                    for (int64_t c = 0; c < cg; ++c) tap(xi + c * x_channel, wi + c * w_channel);
                  }
                }
              }
            };
            element(m, (((n * g.out_channels + m) * out[0] + od) * out[1] + oh) * out[2] + ow, for_each_tap);
          }
        }
      }
    }
  }
}

}  // namespace mote::reference
