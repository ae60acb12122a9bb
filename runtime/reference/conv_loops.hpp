// The loop nest of the reference convolutions, written once: every output
// element, and for each one every input tap inside the image (padding taps
// are skipped, as zeros).
#pragma once

#include <cstdint>

#include "runtime/ops/conv_geometry.hpp"

namespace mote::reference {

// Calls element(m, yi, for_each_tap) for output channel m and flat output
// index yi of every output element; for_each_tap(tap) calls tap(xi, wi) with
// the flat indices of X and W of each tap that lies inside the image.
template <class Element>
void for_each_conv_output(const ConvGeometry& g, Element&& element) {
  const auto& in = g.in_size;
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      const int64_t first_channel = (m / mg) * cg;
      for (int64_t od = 0; od < out[0]; ++od) {
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            auto for_each_tap = [&](auto&& tap) {
              for (int64_t c = 0; c < cg; ++c) {
                for (int64_t kd = 0; kd < k[0]; ++kd) {
                  int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
                  if (id < 0 || id >= in[0]) continue;
                  for (int64_t kh = 0; kh < k[1]; ++kh) {
                    int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
                    if (ih < 0 || ih >= in[1]) continue;
                    for (int64_t kw = 0; kw < k[2]; ++kw) {
                      int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                      if (iw < 0 || iw >= in[2]) continue;
                      tap((((n * g.in_channels + first_channel + c) * in[0] + id) * in[1] + ih) * in[2] + iw,
                          (((m * cg + c) * k[0] + kd) * k[1] + kh) * k[2] + kw);
                    }
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
