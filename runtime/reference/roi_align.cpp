// Reference RoiAlign, by ONNX's definition, in double; the CPU backend runs
// it too. A bin's value is the mean of its bilinear samples, or in max mode
// the largest of the weighted corner terms w_k * x_k over its samples (ONNX's
// and onnxruntime's definition, not the max of the interpolated values).
// Samples more than one pixel outside the image count as zero.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

struct Sample {
  int64_t at[4] = {0, 0, 0, 0};  // offsets of the four neighbours in the image plane
  double w[4] = {0, 0, 0, 0};
};

// The bilinear neighbours of (y, x) in an H x W plane.
Sample bilinear(double y, double x, int64_t height, int64_t width) {
  Sample s;
  // Written so a NaN coordinate (a NaN region) also lands outside.
  const bool inside = y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 && x <= static_cast<double>(width);
  if (!inside) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  int64_t y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= height - 1) y = static_cast<double>(y0 = y1 = height - 1);
  if (x0 >= width - 1) x = static_cast<double>(x0 = x1 = width - 1);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  s.at[0] = y0 * width + x0;
  s.at[1] = y0 * width + x1;
  s.at[2] = y1 * width + x0;
  s.at[3] = y1 * width + x1;
  s.w[0] = (1 - ly) * (1 - lx);
  s.w[1] = (1 - ly) * lx;
  s.w[2] = ly * (1 - lx);
  s.w[3] = ly * lx;
  return s;
}

constexpr double kMaxSamplesPerBin = 1 << 16;

Status roi_align(KernelContext& ctx) {
  const auto& a = attrs<fb::RoiAlignAttrsT>(ctx.op);
  const Tensor& x = ctx.in(0);
  const int64_t images = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  const float* rois = ctx.in(1).data<float>();
  const std::vector<int64_t> batch = ctx.in(2).to_int64s();
  const int64_t bins_h = a.output_height, bins_w = a.output_width;
  float* out = ctx.out(0).data<float>();
  const double shift = a.half_pixel ? 0.5 : 0.0;
  for (size_t r = 0; r < batch.size(); ++r) {
    if (batch[r] < 0 || batch[r] >= images) {
      return ctx.fail("batch_indices[" + std::to_string(r) + "] = " + std::to_string(batch[r]) + " is outside [0, " +
                      std::to_string(images) + ")");
    }
    const float* roi = rois + r * 4;
    const double x1 = roi[0] * a.spatial_scale - shift, y1 = roi[1] * a.spatial_scale - shift;
    double roi_w = roi[2] * a.spatial_scale - shift - x1, roi_h = roi[3] * a.spatial_scale - shift - y1;
    if (!a.half_pixel) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    const double bin_h = roi_h / static_cast<double>(bins_h), bin_w = roi_w / static_cast<double>(bins_w);
    // Adaptive sampling takes ceil(bin size) points per side: a region from
    // the input (or a hostile file) can ask for 10^15 of them, or NaN.
    // At least one point per side: half-pixel regions may have a negative
    // side, whose product with a huge other side would slip past the bound.
    // (std::max keeps a NaN, which the bound refuses.)
    const double want_h = std::max(a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio) : std::ceil(bin_h), 1.0);
    const double want_w = std::max(a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio) : std::ceil(bin_w), 1.0);
    if (!(want_h * want_w <= kMaxSamplesPerBin)) {
      char need[64];
      std::snprintf(need, sizeof need, "%.4g x %.4g", want_h, want_w);
      return ctx.fail("region " + std::to_string(r) + " needs " + need + " sampling points per bin; Mote takes at most " +
                      std::to_string(static_cast<int64_t>(kMaxSamplesPerBin)) + " (are the rois in input pixels?)");
    }
    const auto grid_h = static_cast<int64_t>(want_h), grid_w = static_cast<int64_t>(want_w);
    const double count = static_cast<double>(grid_h * grid_w);
    std::vector<Sample> samples(static_cast<size_t>(grid_h * grid_w));
    for (int64_t ph = 0; ph < bins_h; ++ph) {
      for (int64_t pw = 0; pw < bins_w; ++pw) {
        // One bin's sampling points, then that bin in every channel.
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const double y = y1 + static_cast<double>(ph) * bin_h + (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const double xx = x1 + static_cast<double>(pw) * bin_w + (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
            samples[static_cast<size_t>(iy * grid_w + ix)] = bilinear(y, xx, height, width);
          }
        }
        const int64_t bin = ph * bins_w + pw;
        for (int64_t c = 0; c < channels; ++c) {
          const float* plane = x.data<float>() + (batch[r] * channels + c) * height * width;
          double value = 0;
          for (size_t k = 0; k < samples.size(); ++k) {
            const Sample& s = samples[k];
            if (a.mode == fb::RoiPoolMode::Avg) {
              for (int n = 0; n < 4; ++n) value += s.w[n] * plane[s.at[n]];
            } else {
              double m = s.w[0] * plane[s.at[0]];
              for (int n = 1; n < 4; ++n) m = std::max(m, s.w[n] * plane[s.at[n]]);
              value = k == 0 ? m : std::max(value, m);
            }
          }
          out[(static_cast<int64_t>(r) * channels + c) * bins_h * bins_w + bin] =
              static_cast<float>(a.mode == fb::RoiPoolMode::Avg ? value / count : value);
        }
      }
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(RoiAlign, mote::reference::roi_align);
