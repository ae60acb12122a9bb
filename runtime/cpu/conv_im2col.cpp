#include "runtime/cpu/conv_im2col.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/cpu/row_simd.hpp"

namespace mote::cpu {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// Positions t in [0, count) whose partner t * stride - pad + offset lies in
// [0, limit): for Conv, t is an output index and the partner an input index;
// for ConvTranspose the other way round. Returns [lo, hi), possibly empty.
struct Range {
  int64_t lo, hi;
};
Range valid_range(int64_t count, int64_t limit, int64_t stride, int64_t pad, int64_t offset) {
  int64_t lo = std::max<int64_t>(0, ceil_div(pad - offset, stride));
  int64_t hi = std::min<int64_t>(count, floor_div(limit - 1 + pad - offset, stride) + 1);
  return {lo, std::max(lo, hi)};
}

// Calls fn(column, a, b, c_begin, c_end) for each run of pixels [p0, p1) of
// a grid sized `size` that shares its two outer coordinates (a, b); `column`
// is the run's first pixel minus p0. Divides once, then steps the
// coordinates: runs are short (a 14-pixel row) and many.
template <class Fn>
void for_each_run(const ConvGeometry::Dims& size, int64_t p0, int64_t p1, Fn fn) {
  int64_t c = p0 % size[2];
  int64_t b = p0 / size[2] % size[1];
  int64_t a = p0 / (size[2] * size[1]);
  for (int64_t p = p0; p < p1;) {
    const int64_t len = std::min(size[2] - c, p1 - p);
    fn(p - p0, a, b, c, c + len);
    p += len;
    c = 0;
    if (++b == size[1]) {
      b = 0;
      ++a;
    }
  }
}

// Plain loops rather than memcpy/fill calls: the runs are a few dozen floats,
// where a library call costs more than the copy (GCC vectorizes these).
inline void zero(float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = 0.0f;
}
inline void copy_run(const float* src, int64_t stride, float* dst, int64_t n) {
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else if (stride == 2 && n >= 16) {
    simd::copy_every_second(src, n, dst);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }
}

}  // namespace

void im2col(const ConvGeometry& g, const float* x, int64_t p0, int64_t p1, int64_t row_begin, int64_t row_end,
            float* col, int64_t ld) {
  const auto& k = g.kernel;
  const auto& in = g.in_size;
  const int64_t kvol = g.kernel_volume();
  const int64_t sw = g.stride[2];
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t c = r / kvol;
    const int64_t kd = r / (k[1] * k[2]) % k[0];
    const int64_t kh = r / k[2] % k[1];
    const int64_t kw = r % k[2];
    const Range w_ok = valid_range(g.out_size[2], in[2], sw, g.pad_begin[2], kw * g.dilation[2]);
    float* dst_row = col + r * ld;
    for_each_run(g.out_size, p0, p1, [&](int64_t column, int64_t od, int64_t oh, int64_t ow0, int64_t ow1) {
      float* dst = dst_row + column;  // dst[j] is the column of pixel (od, oh, ow0 + j)
      const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
      const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
      if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1]) {
        zero(dst, ow1 - ow0);
        return;
      }
      const int64_t lo = std::clamp(w_ok.lo, ow0, ow1);
      const int64_t hi = std::clamp(w_ok.hi, lo, ow1);
      zero(dst, lo - ow0);
      zero(dst + (hi - ow0), ow1 - hi);
      if (hi == lo) return;
      const float* src = x + ((c * in[0] + id) * in[1] + ih) * in[2] + (lo * sw - g.pad_begin[2] + kw * g.dilation[2]);
      copy_run(src, sw, dst + (lo - ow0), hi - lo);
    });
  }
}

PaddedPatches padded_patches(const ConvGeometry& g) {
  PaddedPatches p;
  for (int i = 0; i < ConvGeometry::kMaxSpatial; ++i) {
    const int64_t reach = (g.out_size[i] - 1) * g.stride[i] + (g.kernel[i] - 1) * g.dilation[i] + 1;
    p.size[i] = std::max(g.pad_begin[i] + g.in_size[i], reach);
  }
  return p;
}

void pad_input(const ConvGeometry& g, const PaddedPatches& p, const float* x, int64_t channels, float* padded) {
  const auto& in = g.in_size;
  const auto& size = p.size;
  for (int64_t c = 0; c < channels; ++c) {
    float* dst = padded + c * p.plane();
    std::fill(dst, dst + p.plane(), 0.0f);
    for (int64_t d = 0; d < in[0]; ++d) {
      for (int64_t h = 0; h < in[1]; ++h) {
        const float* src = x + ((c * in[0] + d) * in[1] + h) * in[2];
        float* row = dst + ((g.pad_begin[0] + d) * size[1] + g.pad_begin[1] + h) * size[2] + g.pad_begin[2];
        std::copy(src, src + in[2], row);
      }
    }
  }
}

void patch_offsets(const ConvGeometry& g, const PaddedPatches& p, int64_t channels, int64_t* pixel_offsets,
                   int64_t* row_offsets) {
  const auto& out = g.out_size;
  const auto& k = g.kernel;
  const auto& size = p.size;
  for (int64_t od = 0, i = 0; od < out[0]; ++od) {
    for (int64_t oh = 0; oh < out[1]; ++oh) {
      for (int64_t ow = 0; ow < out[2]; ++ow, ++i) {
        pixel_offsets[i] = ((od * g.stride[0]) * size[1] + oh * g.stride[1]) * size[2] + ow * g.stride[2];
      }
    }
  }
  for (int64_t c = 0, r = 0; c < channels; ++c) {
    for (int64_t kd = 0; kd < k[0]; ++kd) {
      for (int64_t kh = 0; kh < k[1]; ++kh) {
        for (int64_t kw = 0; kw < k[2]; ++kw, ++r) {
          row_offsets[r] = c * p.plane() + (kd * g.dilation[0] * size[1] + kh * g.dilation[1]) * size[2] +
                           kw * g.dilation[2];
        }
      }
    }
  }
}

void col2im_add(const ConvGeometry& g, const float* col, int64_t ld, int64_t p0, int64_t p1, int64_t row_begin,
                int64_t row_end, float* y) {
  const auto& k = g.kernel;
  const auto& out = g.out_size;
  const int64_t kvol = g.kernel_volume();
  const int64_t sw = g.stride[2];
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t m = r / kvol;
    const int64_t kd = r / (k[1] * k[2]) % k[0];
    const int64_t kh = r / k[2] % k[1];
    const int64_t kw = r % k[2];
    const Range w_ok = valid_range(g.in_size[2], out[2], sw, g.pad_begin[2], kw * g.dilation[2]);
    const float* src_row = col + r * ld;
    for_each_run(g.in_size, p0, p1, [&](int64_t column, int64_t id, int64_t ih, int64_t iw0, int64_t iw1) {
      const int64_t od = id * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
      const int64_t oh = ih * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
      if (od < 0 || od >= out[0] || oh < 0 || oh >= out[1]) return;
      const int64_t lo = std::clamp(w_ok.lo, iw0, iw1);
      const int64_t hi = std::clamp(w_ok.hi, lo, iw1);
      if (hi == lo) return;
      const float* src = src_row + column + (lo - iw0);  // the column of pixel (id, ih, lo)
      float* dst = y + ((m * out[0] + od) * out[1] + oh) * out[2] + (lo * sw - g.pad_begin[2] + kw * g.dilation[2]);
      if (sw == 1) {
        for (int64_t j = 0; j < hi - lo; ++j) dst[j] += src[j];
      } else {
        for (int64_t j = 0; j < hi - lo; ++j) dst[j * sw] += src[j];
      }
    });
  }
}

}  // namespace mote::cpu
