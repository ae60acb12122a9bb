#include "runtime/cpu/conv_winograd.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/cpu/activation.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/cpu/winograd_simd.hpp"

namespace mote::cpu {
namespace {

constexpr int kOut = 4;               // outputs per tile side
constexpr int kIn = 6;                // inputs per tile side (kOut + 3 - 1)
constexpr int kPoints = kIn * kIn;    // GEMMs per block
// Cap on the per-block transform buffers (inputs and products of all 36
// points): bounds memory for large images, which are done in bands of tile
// rows. Each GEMM touches 1/36 of it.
constexpr int64_t kBlockBytes = 8 << 20;
// Below these the 36 GEMMs are too thin to beat im2col and one large GEMM.
// Measured on ResNet-18 at 1 thread: its 14x14 layers (256 channels, 16
// tiles) took 2.2 ms with Winograd against 1.9 ms with im2col; its 28x28
// layers (49 tiles) 1.4 ms against 1.9 ms; its 56x56 layers 1.5 against 2.0.
constexpr int64_t kMinChannels = 16;
constexpr int64_t kMinTiles = 40;

// Tiles transformed together, one SIMD lane each (winograd_simd), so the
// stores to the 36 point planes are contiguous runs.
constexpr int kLanes = simd::kWinogradLanes;
using Lanes = float[kLanes];

// The weight transform G g (3 -> 6) along one line of a filter, `s` and `os`
// apart; applied to the columns and then the rows. Once per model, scalar.
inline void weight_1d(const float* g, int s, float* o, int os) {
  o[0 * os] = g[0] / 4.0f;
  o[1 * os] = -(g[0] + g[s] + g[2 * s]) / 6.0f;
  o[2 * os] = -(g[0] - g[s] + g[2 * s]) / 6.0f;
  o[3 * os] = g[0] / 24.0f + g[s] / 12.0f + g[2 * s] / 6.0f;
  o[4 * os] = g[0] / 24.0f - g[s] / 12.0f + g[2 * s] / 6.0f;
  o[5 * os] = g[2 * s];
}

// One block: tile rows [row0, row1) of one image.
struct Block {
  int64_t row0, row1, tiles;  // tiles = (row1 - row0) * tiles_w
};

struct Layout {
  int64_t in_h, in_w, out_h, out_w, pad_top, pad_left, tiles_w, tiles_h;
};

// The 6x6 inputs of tile t (block-relative) of one channel plane into lane
// `l` of d, zeros outside the image.
void gather_tile(const Layout& l, const Block& b, const float* plane, int64_t t, int lane, Lanes* d) {
  const int64_t y0 = (b.row0 + t / l.tiles_w) * kOut - l.pad_top, x0 = (t % l.tiles_w) * kOut - l.pad_left;
  if (y0 >= 0 && x0 >= 0 && y0 + kIn <= l.in_h && x0 + kIn <= l.in_w) {
    for (int i = 0; i < kIn; ++i) {
      const float* row = plane + (y0 + i) * l.in_w + x0;
      for (int j = 0; j < kIn; ++j) d[i * kIn + j][lane] = row[j];
    }
    return;
  }
  for (int i = 0; i < kIn; ++i) {
    for (int j = 0; j < kIn; ++j) {
      const int64_t yy = y0 + i, xx = x0 + j;
      d[i * kIn + j][lane] = (yy >= 0 && yy < l.in_h && xx >= 0 && xx < l.in_w) ? plane[yy * l.in_w + xx] : 0.0f;
    }
  }
}

// V[point][c][t] = B^T d B for input channels [c0, c1) and every tile t of
// the block.
void transform_inputs(const Layout& l, const Block& b, const float* x, int64_t c0, int64_t c1, int64_t channels,
                      float* v) {
  const int64_t point_stride = channels * b.tiles;
  alignas(64) Lanes d[kPoints] = {}, out[kPoints];  // lanes past the last tile stay 0
  for (int64_t c = c0; c < c1; ++c) {
    const float* plane = x + c * l.in_h * l.in_w;
    for (int64_t t0 = 0; t0 < b.tiles; t0 += kLanes) {
      const int count = static_cast<int>(std::min<int64_t>(kLanes, b.tiles - t0));
      for (int lane = 0; lane < count; ++lane) gather_tile(l, b, plane, t0 + lane, lane, d);
      simd::winograd_input_tiles(d[0], out[0]);
      float* dst = v + c * b.tiles + t0;
      for (int p = 0; p < kPoints; ++p) std::memcpy(dst + p * point_stride, out[p], sizeof(float) * count);
    }
  }
}

// y = A^T m A (+ bias, clamped) for output channels [k0, k1) of the block,
// then any activation that is more than a clamp, over the finished rows.
void transform_outputs(const Layout& l, const Block& b, const float* m, int64_t k0, int64_t k1, int64_t channels,
                       const float* bias, const fb::FusedActivationT* act, float* y) {
  const GemmEpilogue clamp = fused::clamp_epilogue(act);
  const int64_t point_stride = channels * b.tiles;
  alignas(64) Lanes tile[kPoints] = {}, out[kOut * kOut];
  for (int64_t k = k0; k < k1; ++k) {
    float* plane = y + k * l.out_h * l.out_w;
    const float add = bias ? bias[k] : 0.0f;
    for (int64_t t0 = 0; t0 < b.tiles; t0 += kLanes) {
      const int count = static_cast<int>(std::min<int64_t>(kLanes, b.tiles - t0));
      const float* src = m + k * b.tiles + t0;
      for (int p = 0; p < kPoints; ++p) std::memcpy(tile[p], src + p * point_stride, sizeof(float) * count);
      simd::winograd_output_tiles(tile[0], add, clamp.clamp_min, clamp.clamp_max, out[0]);
      for (int lane = 0; lane < count; ++lane) {
        const int64_t t = t0 + lane;
        const int64_t oy = (b.row0 + t / l.tiles_w) * kOut, ox = (t % l.tiles_w) * kOut;
        const int64_t rows = std::min<int64_t>(kOut, l.out_h - oy), width = std::min<int64_t>(kOut, l.out_w - ox);
        for (int64_t i = 0; i < rows; ++i) {
          float* row = plane + (oy + i) * l.out_w + ox;
          for (int64_t j = 0; j < width; ++j) row[j] = out[i * kOut + j][lane];
        }
      }
    }
    if (fused::needs_pass(act)) {
      const int64_t first = b.row0 * kOut, last = std::min(l.out_h, b.row1 * kOut);
      apply_fused_activation(act, plane + first * l.out_w, (last - first) * l.out_w);
    }
  }
}

}  // namespace

bool winograd_pays(const ConvGeometry& g) {
  if (g.spatial_rank != 2 || g.group != 1 || g.kernel[1] != 3 || g.kernel[2] != 3) return false;
  if (g.stride[1] != 1 || g.stride[2] != 1 || g.dilation[1] != 1 || g.dilation[2] != 1) return false;
  if (g.in_channels < kMinChannels || g.out_channels < kMinChannels) return false;
  const int64_t tiles = ((g.out_size[1] + kOut - 1) / kOut) * ((g.out_size[2] + kOut - 1) / kOut);
  return tiles >= kMinTiles;
}

WinogradWeights winograd_pack_weights(const ConvGeometry& g, const float* w) {
  const int64_t cout = g.out_channels, cin = g.in_channels;
  // u[point][k][c]: the 6x6 transform G g G^T of each 3x3 filter.
  std::vector<float> u(static_cast<size_t>(kPoints * cout * cin));
  for (int64_t k = 0; k < cout; ++k) {
    for (int64_t c = 0; c < cin; ++c) {
      const float* filter = w + (k * cin + c) * 9;
      float cols[kIn * 3], out[kPoints];
      for (int j = 0; j < 3; ++j) weight_1d(filter + j, 3, cols + j, 3);
      for (int i = 0; i < kIn; ++i) weight_1d(cols + i * 3, 1, out + i * kIn, 1);
      for (int p = 0; p < kPoints; ++p) u[static_cast<size_t>((p * cout + k) * cin + c)] = out[p];
    }
  }
  WinogradWeights packed;
  for (int p = 0; p < kPoints; ++p) packed.points.push_back(pack_a(false, cout, cin, u.data() + p * cout * cin, cin));
  return packed;
}

void winograd_conv(const ConvGeometry& g, const WinogradWeights& u, const float* x, const float* bias,
                   const fb::FusedActivationT* act, float* y, ThreadPool& pool) {
  const int64_t cin = g.in_channels, cout = g.out_channels;
  Layout l{g.in_size[1], g.in_size[2], g.out_size[1], g.out_size[2], g.pad_begin[1], g.pad_begin[2], 0, 0};
  l.tiles_w = (l.out_w + kOut - 1) / kOut;
  l.tiles_h = (l.out_h + kOut - 1) / kOut;
  const int64_t row_bytes = kPoints * (cin + cout) * l.tiles_w * int64_t{sizeof(float)};
  const int64_t rows_per_block = std::clamp<int64_t>(kBlockBytes / row_bytes, 1, l.tiles_h);
  float* v = thread_scratch(static_cast<size_t>(kPoints * (cin + cout) * rows_per_block * l.tiles_w));
  const int64_t in_image = cin * l.in_h * l.in_w, out_image = cout * l.out_h * l.out_w;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t row0 = 0; row0 < l.tiles_h; row0 += rows_per_block) {
      Block b{row0, std::min(l.tiles_h, row0 + rows_per_block), 0};
      b.tiles = (b.row1 - b.row0) * l.tiles_w;
      float* m = v + kPoints * cin * b.tiles;
      // Three phases, each spread over the pool: the GEMMs are independent
      // across the 36 points, so each runs whole on one thread.
      pool.parallel_for(cin, 1, [&](int64_t c0, int64_t c1) {
        transform_inputs(l, b, x + n * in_image, c0, c1, cin, v);
      });
      pool.run(kPoints, [&](int64_t p) {
        sgemm(u.points[static_cast<size_t>(p)], false, b.tiles, 1.0f, v + p * cin * b.tiles, b.tiles, 0.0f,
              m + p * cout * b.tiles, b.tiles);
      });
      pool.parallel_for(cout, 1, [&](int64_t k0, int64_t k1) {
        transform_outputs(l, b, m, k0, k1, cout, bias, act, y + n * out_image);
      });
    }
  }
}

}  // namespace mote::cpu
