#include "runtime/cpu/conv_winograd.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

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
// Measured on ResNet-18 at 1 thread (2 vCPU AMD EPYC, AVX-512): its 14x14
// layers (256 channels, 16 tiles) 2.45 ms direct against 1.40 ms Winograd,
// and at 2 threads 1.22 against 0.75 ms; whole ResNet-50 77 -> 71 ms. Its 7x7
// layers (512 channels, 4 tiles) do not pay: 2.5 ms direct against 4.6 ms,
// the 36 transformed weight matrices (38 MB) streaming from memory for four
// rows each. Turning the 14x14 products around (tiles along M, channels along
// the vectors) measured no faster: a 16-column panel keeps eight accumulators
// busy. (An earlier Xeon measurement, before the GEMM's later tuning, had the
// 14x14 layers slower with Winograd, 2.2 against 1.9 ms.)
constexpr int64_t kMinChannels = 16;
constexpr int64_t kMinTiles = 16;

// Tiles one output transform call covers at most, whole tile rows (at least
// one): a few vectors' worth, so the rows it writes stay in L1.
constexpr int64_t kOutputTilesPerPass = 64;

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

// Zero-padded rows for the row transforms of the calling thread: six input
// (or four output) rows plus the transform's scratch, kept between calls.
float* row_buffer(size_t stride) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < 12 * stride) buffer.assign(12 * stride, 0.0f);
  return buffer.data();
}

// V[point][c][t] = B^T d B for input channels [c0, c1) and every tile t of
// the block, one tile row at a time.
void transform_inputs(const Layout& l, const Block& b, const float* x, int64_t c0, int64_t c1, int64_t channels,
                      float* v) {
  const size_t stride = simd::winograd_row_floats(static_cast<size_t>(l.tiles_w));
  float* rows = row_buffer(stride);
  float* scratch = rows + 6 * stride;
  // Columns [pad_left, pad_left + in_w) of each row hold the image or zeros;
  // the rest stays zero from here on.
  std::fill(rows, rows + 6 * stride, 0.0f);
  const size_t point_stride = static_cast<size_t>(channels * b.tiles);
  for (int64_t c = c0; c < c1; ++c) {
    const float* plane = x + c * l.in_h * l.in_w;
    for (int64_t ty = b.row0; ty < b.row1; ++ty) {
      for (int64_t i = 0; i < kIn; ++i) {
        const int64_t yy = ty * kOut - l.pad_top + i;
        float* row = rows + static_cast<size_t>(i) * stride + l.pad_left;
        if (yy >= 0 && yy < l.in_h) {
          std::memcpy(row, plane + yy * l.in_w, sizeof(float) * static_cast<size_t>(l.in_w));
        } else {
          std::fill(row, row + l.in_w, 0.0f);
        }
      }
      simd::winograd_input_row(rows, stride, static_cast<size_t>(l.tiles_w), scratch,
                               v + c * b.tiles + (ty - b.row0) * l.tiles_w, point_stride);
    }
  }
}

// y = A^T m A (+ bias, clamped) for output channels [k0, k1) of the block,
// then any activation that is more than a clamp, over the finished rows;
// with a residual (at the image's first channel), the clamp waits for it.
// Several tile rows go through the SIMD transform as one row (tiles write
// disjoint columns, with no halo as the input has): one tile row of a small
// image fills a quarter of a vector (14x14: 4 tiles). ResNet-18's 14x14
// layers at 1 thread, two runs alternating: 1.45 / 1.56 -> 1.20 / 1.33 ms; its
// 28x28 layers (7 tiles a row) 1.09 / 1.19 -> 1.00 / 1.11 ms.
void transform_outputs(const Layout& l, const Block& b, const float* m, int64_t k0, int64_t k1, int64_t channels,
                       const float* bias, const float* residual, const fb::FusedActivationT* act, float* y) {
  const GemmEpilogue clamp = residual ? GemmEpilogue{} : fused::clamp_epilogue(act);
  const int64_t rows_per_pass = std::max<int64_t>(1, kOutputTilesPerPass / l.tiles_w);
  const size_t stride = simd::winograd_row_floats(static_cast<size_t>(rows_per_pass * l.tiles_w));
  float* rows = row_buffer(stride);
  const size_t point_stride = static_cast<size_t>(channels * b.tiles);
  for (int64_t k = k0; k < k1; ++k) {
    float* plane = y + k * l.out_h * l.out_w;
    const float add = bias ? bias[k] : 0.0f;
    for (int64_t ty0 = b.row0; ty0 < b.row1; ty0 += rows_per_pass) {
      const int64_t ty1 = std::min(b.row1, ty0 + rows_per_pass);
      simd::winograd_output_row(m + k * b.tiles + (ty0 - b.row0) * l.tiles_w, point_stride,
                                static_cast<size_t>((ty1 - ty0) * l.tiles_w), add, clamp.clamp_min, clamp.clamp_max,
                                rows, stride);
      for (int64_t ty = ty0; ty < ty1; ++ty) {
        const float* tile_row = rows + (ty - ty0) * l.tiles_w * kOut;
        const int64_t oy = ty * kOut, count = std::min<int64_t>(kOut, l.out_h - oy);
        for (int64_t i = 0; i < count; ++i) {
          std::memcpy(plane + (oy + i) * l.out_w, tile_row + static_cast<size_t>(i) * stride,
                      sizeof(float) * static_cast<size_t>(l.out_w));
        }
      }
    }
    const int64_t first = b.row0 * kOut, last = std::min(l.out_h, b.row1 * kOut);
    if (residual) {
      fused::add_residual_and_activate(act, plane + first * l.out_w,
                                       residual + (k * l.out_h + first) * l.out_w, (last - first) * l.out_w);
    } else if (fused::needs_pass(act)) {
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
                   const float* residual, const fb::FusedActivationT* act, float* y, ThreadPool& pool) {
  const int64_t cin = g.in_channels, cout = g.out_channels;
  Layout l{g.in_size[1], g.in_size[2], g.out_size[1], g.out_size[2], g.pad_begin[1], g.pad_begin[2], 0, 0};
  l.tiles_w = (l.out_w + kOut - 1) / kOut;
  l.tiles_h = (l.out_h + kOut - 1) / kOut;
  const int64_t row_bytes = kPoints * (cin + cout) * l.tiles_w * int64_t{sizeof(float)};
  const int64_t rows_per_block = std::clamp<int64_t>(kBlockBytes / row_bytes, 1, l.tiles_h);
  // The output transform reads up to a vector past the last tile.
  float* v = thread_scratch(static_cast<size_t>(kPoints * (cin + cout) * rows_per_block * l.tiles_w) +
                            simd::kWinogradLanes);
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
        transform_outputs(l, b, m, k0, k1, cout, bias, residual ? residual + n * out_image : nullptr, act,
                          y + n * out_image);
      });
    }
  }
}

}  // namespace mote::cpu
