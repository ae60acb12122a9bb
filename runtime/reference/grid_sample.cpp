// Reference GridSample and AffineGrid, following ONNX's definitions in
// double; the CPU backend runs them too.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// Normalised [-1, 1] to pixel coordinates of a dimension of `size`.
double denormalise(double n, int64_t size, bool align_corners) {
  return align_corners ? (n + 1) / 2 * static_cast<double>(size - 1) : ((n + 1) * static_cast<double>(size) - 1) / 2;
}

// Reflects x into [lo, hi] off the nearer border, as often as needed.
double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double d = lo - x;
    const auto n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double d = x - hi;
    const auto n = static_cast<int64_t>(d / range);
    const double r = d - static_cast<double>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_weights(double t, double w[4]) {
  constexpr double a = -0.75;
  auto far = [](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  auto near = [](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

struct Sampler {
  const float* plane;  // one (n, c) image
  Shape dims;          // its spatial dims
  fb::GridPadding padding;
  bool align_corners;

  double lo(size_t d) const { return align_corners ? 0.0 : -0.5; }
  double hi(size_t d) const { return static_cast<double>(dims[d]) - (align_corners ? 1.0 : 0.5); }

  // The pixel at integer coordinates, per the padding mode.
  double pixel(std::vector<int64_t> at) const {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (at[d] >= 0 && at[d] < dims[d]) continue;
      switch (padding) {
        case fb::GridPadding::Zeros: return 0.0;
        case fb::GridPadding::Border: at[d] = std::clamp<int64_t>(at[d], 0, dims[d] - 1); break;
        case fb::GridPadding::Reflection:
          at[d] = static_cast<int64_t>(reflect(static_cast<double>(at[d]), lo(d), hi(d)));
          break;
      }
    }
    return plane[ravel_index(at, dims)];
  }
};

Status grid_sample(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const Tensor& grid = ctx.in(1);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::GridSampleAttrsT>(ctx.op);
  const size_t r = static_cast<size_t>(x.rank() - 2);
  const Shape dims(x.shape().begin() + 2, x.shape().end());
  const int64_t plane_size = shape_numel(dims);
  const int64_t points = shape_numel(Shape(grid.shape().begin() + 1, grid.shape().end() - 1));
  const int taps = a.mode == fb::ResizeMode::Cubic ? 4 : a.mode == fb::ResizeMode::Linear ? 2 : 1;
  for (int64_t n = 0; n < x.dim(0); ++n) {
    for (int64_t c = 0; c < x.dim(1); ++c) {
      Sampler s{x.data<float>() + (n * x.dim(1) + c) * plane_size, dims, a.padding_mode, a.align_corners};
      for (int64_t p = 0; p < points; ++p) {
        const float* g = grid.data<float>() + (n * points + p) * static_cast<int64_t>(r);
        std::vector<double> coord(r);
        for (size_t d = 0; d < r; ++d) {
          double v = denormalise(g[r - 1 - d], dims[d], a.align_corners);
          if (a.mode == fb::ResizeMode::Nearest) v = std::nearbyint(v);
          if (v < s.lo(d) || v > s.hi(d)) {
            if (a.padding_mode == fb::GridPadding::Border) v = std::clamp(v, 0.0, static_cast<double>(dims[d] - 1));
            if (a.padding_mode == fb::GridPadding::Reflection) v = reflect(v, s.lo(d), s.hi(d));
          }
          coord[d] = v;
        }
        // Per dimension: the first tap and the tap weights.
        std::vector<int64_t> first(r);
        std::vector<std::array<double, 4>> weights(r);
        for (size_t d = 0; d < r; ++d) {
          const double base = std::floor(coord[d]);
          const double t = coord[d] - base;
          if (taps == 1) {
            first[d] = static_cast<int64_t>(coord[d]);
            weights[d] = {1, 0, 0, 0};
          } else if (taps == 2) {
            first[d] = static_cast<int64_t>(base);
            weights[d] = {1 - t, t, 0, 0};
          } else {
            first[d] = static_cast<int64_t>(base) - 1;
            cubic_weights(t, weights[d].data());
          }
        }
        double sum = 0;
        std::vector<int64_t> at(r);
        int64_t corners = 1;
        for (size_t d = 0; d < r; ++d) corners *= taps;
        for (int64_t k = 0; k < corners; ++k) {
          double w = 1;
          int64_t rest = k;
          for (size_t d = 0; d < r; ++d) {
            const int64_t t = rest % taps;
            rest /= taps;
            at[d] = first[d] + t;
            w *= weights[d][static_cast<size_t>(t)];
          }
          if (w != 0) sum += w * s.pixel(at);
        }
        out.data<float>()[(n * x.dim(1) + c) * points + p] = static_cast<float>(sum);
      }
    }
  }
  return {};
}

Status affine_grid(KernelContext& ctx) {
  const Tensor& theta = ctx.in(0);
  auto size = read_int_list(ctx.in(1), "'size' (input 1)");
  if (!size.ok()) return ctx.fail(size.status().message());
  const bool align = attrs<fb::GridSampleAttrsT>(ctx.op).align_corners;
  const Shape dims(size->begin() + 2, size->end());
  const size_t r = dims.size();
  const int64_t points = shape_numel(dims);
  float* out = ctx.out(0).data<float>();
  for (int64_t n = 0; n < (*size)[0]; ++n) {
    const float* t = theta.data<float>() + n * static_cast<int64_t>(r * (r + 1));
    std::vector<int64_t> index;
    for (int64_t p = 0; p < points; ++p) {
      unravel_index(p, dims, index);
      // Homogeneous base coordinates, innermost dimension first: (x, y, [z,] 1).
      std::vector<double> base(r + 1, 1.0);
      for (size_t d = 0; d < r; ++d) {
        const double s = static_cast<double>(dims[d]);
        const double i = static_cast<double>(index[d]);
        base[r - 1 - d] = align ? (s > 1 ? -1 + 2 * i / (s - 1) : 0.0) : -1 + (2 * i + 1) / s;
      }
      for (size_t k = 0; k < r; ++k) {
        double v = 0;
        for (size_t j = 0; j <= r; ++j) v += static_cast<double>(t[k * (r + 1) + j]) * base[j];
        out[(n * points + p) * static_cast<int64_t>(r) + static_cast<int64_t>(k)] = static_cast<float>(v);
      }
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(GridSample, mote::reference::grid_sample);
MOTE_REF_KERNEL(AffineGrid, mote::reference::affine_grid);
