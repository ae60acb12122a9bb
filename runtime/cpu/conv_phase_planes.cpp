#include "runtime/cpu/conv_phase_planes.hpp"

#include <algorithm>

#include "runtime/cpu/row_simd.hpp"

namespace mote::cpu {

bool phase_planes_apply(const ConvGeometry& g) {
  if (g.spatial_rank != 2) return false;
  for (int i = 1; i < ConvGeometry::kMaxSpatial; ++i) {
    if (g.dilation[i] != 1 || g.pad_begin[i] < 0 || g.pad_end[i] < 0) return false;
  }
  return true;
}

PhasePlanes phase_planes(const ConvGeometry& g, int64_t out_rows) {
  PhasePlanes p;
  p.phases_h = std::min(g.stride[1], g.kernel[1]);
  p.phases_w = std::min(g.stride[2], g.kernel[2]);
  p.rows = out_rows + (g.kernel[1] - 1) / g.stride[1];
  p.cols = g.out_size[2] + (g.kernel[2] - 1) / g.stride[2];
  return p;
}

void fill_phase_planes(const ConvGeometry& g, const PhasePlanes& layout, int64_t first_row, const float* x,
                       int64_t channels, float* dst) {
  const int64_t sh = g.stride[1], sw = g.stride[2], in_h = g.in_size[1], in_w = g.in_size[2];
  const int64_t pad_top = g.pad_begin[1], pad_left = g.pad_begin[2];
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * in_h * in_w;
    for (int64_t py = 0; py < layout.phases_h; ++py) {
      for (int64_t px = 0; px < layout.phases_w; ++px) {
        float* plane = dst + ((c * layout.phases_h + py) * layout.phases_w + px) * layout.plane();
        // Phase column j is input column j * sw + px - pad_left: the valid
        // ones are [j0, j1).
        const int64_t first = px - pad_left;
        const int64_t j0 = std::clamp<int64_t>((-first + sw - 1) / sw, 0, layout.cols);
        const int64_t j1 = std::clamp<int64_t>((in_w - first + sw - 1) / sw, j0, layout.cols);
        for (int64_t i = 0; i < layout.rows; ++i) {
          float* out = plane + i * layout.cols;
          const int64_t ih = (first_row + i) * sh + py - pad_top;
          if (ih < 0 || ih >= in_h) {
            std::fill(out, out + layout.cols, 0.0f);
            continue;
          }
          std::fill(out, out + j0, 0.0f);
          const float* src = xc + ih * in_w + j0 * sw + first;
          const int64_t n = j1 - j0;
          if (sw == 1) {
            std::copy(src, src + n, out + j0);
          } else if (sw == 2) {
            simd::copy_every_second(src, n, out + j0);
          } else {
            for (int64_t j = 0; j < n; ++j) out[j0 + j] = src[j * sw];
          }
          std::fill(out + j1, out + layout.cols, 0.0f);
        }
      }
    }
  }
}

void zero_phase_slack(const PhasePlanes& layout, int64_t channels, float* dst) {
  float* slack = dst + channels * layout.phases_h * layout.phases_w * layout.plane();
  std::fill(slack, slack + layout.cols, 0.0f);
}

void phase_row_offsets(const ConvGeometry& g, const PhasePlanes& layout, int64_t channels, int64_t* row_offsets) {
  const int64_t kh = g.kernel[1], kw = g.kernel[2], sh = g.stride[1], sw = g.stride[2];
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t ky = 0; ky < kh; ++ky) {
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t phase = (c * layout.phases_h + ky % sh) * layout.phases_w + kx % sw;
        *row_offsets++ = phase * layout.plane() + ky / sh * layout.cols + kx / sw;
      }
    }
  }
}

}  // namespace mote::cpu
