#include "runtime/cpu/conv_dilation_phases.hpp"

#include <algorithm>
#include <vector>

#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

// One axis of an output phase: outputs r, r + d, ... (`out` of them) read
// the first `rows` rows of input phase `phase`, with pad_begin zeros before
// them and pad_end after.
struct AxisPhase {
  int64_t phase = 0, rows = 0, pad_begin = 0, pad_end = 0, out = 0;
};

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

AxisPhase axis_phase(const ConvGeometry& g, size_t axis, int64_t r) {
  const int64_t n = g.in_size[axis], d = g.dilation[axis], k = g.kernel[axis];
  AxisPhase a;
  a.out = r < g.out_size[axis] ? (g.out_size[axis] - r + d - 1) / d : 0;
  // r - pad = d q + phase: output Y reads rows Y + q + k of the phase. As
  // r < d and Conv's padding is not negative, q <= 0: -q zeros come first.
  const int64_t q = floor_div(r - g.pad_begin[axis], d);
  a.phase = r - g.pad_begin[axis] - q * d;
  const int64_t phase_len = a.phase < n ? (n - a.phase + d - 1) / d : 0;
  a.pad_begin = -q;
  const int64_t span = a.out + k - 1;  // rows the outputs read, zeros included
  a.rows = std::clamp<int64_t>(phase_len, 0, std::max<int64_t>(span - a.pad_begin, 0));
  a.pad_end = span - a.pad_begin - a.rows;
  return a;
}

ConvGeometry phase_geometry(const ConvGeometry& g, const AxisPhase& ay, const AxisPhase& ax) {
  ConvGeometry p = g;
  p.dilation = {1, 1, 1};
  p.in_size[1] = ay.rows;
  p.in_size[2] = ax.rows;
  p.out_size[1] = ay.out;
  p.out_size[2] = ax.out;
  p.pad_begin[1] = ay.pad_begin;
  p.pad_begin[2] = ax.pad_begin;
  p.pad_end[1] = ay.pad_end;
  p.pad_end[2] = ax.pad_end;
  return p;
}

// Output phases along an axis: one per residue of the dilation that has
// outputs.
int64_t phases(const ConvGeometry& g, size_t axis) { return std::min(g.dilation[axis], g.out_size[axis]); }

}  // namespace

ConvGeometry dilation_phase_geometry(const ConvGeometry& g, int64_t ry, int64_t rx) {
  return phase_geometry(g, axis_phase(g, 1, ry), axis_phase(g, 2, rx));
}

bool dilation_phases_apply(const ConvGeometry& g) {
  if (g.spatial_rank != 2 || g.group != 1 || g.kernel[1] != 3 || g.kernel[2] != 3) return false;
  if (g.stride[1] != 1 || g.stride[2] != 1 || (g.dilation[1] == 1 && g.dilation[2] == 1)) return false;
  for (int64_t ry = 0; ry < phases(g, 1); ++ry) {
    if (axis_phase(g, 1, ry).rows < 1) return false;
  }
  for (int64_t rx = 0; rx < phases(g, 2); ++rx) {
    if (axis_phase(g, 2, rx).rows < 1) return false;
  }
  return winograd_tile(dilation_phase_geometry(g, 0, 0)) != 0;
}

WinogradWeights dilation_phases_pack_weights(const ConvGeometry& g, const float* w) {
  return winograd_pack_weights(dilation_phase_geometry(g, 0, 0), w);
}

void dilated_winograd_conv(const ConvGeometry& g, const WinogradWeights& u, const float* x, const float* bias,
                           const fb::FusedActivationT* act, float* y, ThreadPool& pool) {
  const int64_t dy = g.dilation[1], dx = g.dilation[2];
  const int64_t in_w = g.in_size[2], in_plane = g.in_size[1] * in_w;
  const int64_t out_w = g.out_size[2], out_plane = g.out_size[1] * out_w;
  // Not thread_scratch: winograd_conv takes the calling thread's for itself.
  std::vector<float> xs, ys;
  const int64_t planes_in = g.batch * g.in_channels, planes_out = g.batch * g.out_channels;
  for (int64_t ry = 0; ry < phases(g, 1); ++ry) {
    for (int64_t rx = 0; rx < phases(g, 2); ++rx) {
      const AxisPhase ay = axis_phase(g, 1, ry), ax = axis_phase(g, 2, rx);
      const int64_t phase_in = ay.rows * ax.rows, phase_out = ay.out * ax.out;
      xs.resize(static_cast<size_t>(planes_in * phase_in));
      ys.resize(static_cast<size_t>(planes_out * phase_out));
      // The input phase, dense; plain loops, as copy_strided moved these
      // gathers and the scatters below more slowly (256 channels, dilation
      // 2, 33x33: 6.5 -> 7.0 ms at 1 thread).
      pool.parallel_for(planes_in, 1, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const float* src = x + p * in_plane + ay.phase * in_w + ax.phase;
          float* dst = xs.data() + p * phase_in;
          for (int64_t i = 0; i < ay.rows; ++i) {
            const float* row = src + i * dy * in_w;
            for (int64_t j = 0; j < ax.rows; ++j) dst[i * ax.rows + j] = row[j * dx];
          }
        }
      });
      winograd_conv(phase_geometry(g, ay, ax), u, xs.data(), bias, nullptr, act, ys.data(), pool);
      pool.parallel_for(planes_out, 1, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const float* src = ys.data() + p * phase_out;
          float* dst = y + p * out_plane + ry * out_w + rx;
          for (int64_t i = 0; i < ay.out; ++i) {
            for (int64_t j = 0; j < ax.out; ++j) dst[i * dy * out_w + j * dx] = src[i * ax.out + j];
          }
        }
      });
    }
  }
}

}  // namespace mote::cpu
