#include "runtime/cpu/conv_winograd.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "runtime/cpu/activation.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/cpu/winograd_simd.hpp"
#include "runtime/ops/winograd_weights.hpp"

namespace mote::cpu {
namespace {

// Cap on the per-block transform buffers (inputs and products of all the
// points): bounds memory for large images, which are done in bands of tile
// rows. Each GEMM touches one point's share of it.
constexpr int64_t kBlockBytes = 8 << 20;
// Below these the point GEMMs are too thin to beat im2col and one large GEMM.
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
// F(2x2, 3x3) for the images too small for 16 tiles of F(4x4, 3x3) (ResNet's
// 7x7 stage: 4 tiles of 4x4, 16 of 2x2): 16 multiplications per channel pair
// and tile against 36, so 2.25x fewer than direct instead of 4x, but each
// transformed weight serves 16 tiles instead of 4, and the 16 point matrices
// are 1.8x the 3x3 weights, not 4x. Measured alone (one Conv + Relu, pads 1,
// 2 vCPU AMD EPYC), direct -> F(2x2) at 1 / 2 threads: 512 channels 7x7
// 2.26 -> 1.45 / 1.18 -> 0.72 ms, 8x8 2.89 -> 1.46 / 1.40 -> 0.73 ms, 256
// channels 7x7 0.61 -> 0.41 / 0.34 -> 0.22 ms, 12x12 1.73 -> 1.38 / 0.83 ->
// 0.71 ms, 128 channels 10x10 0.35 -> 0.32 / 0.31 -> 0.26 ms, 16 channels 7x7
// 0.013 -> 0.010 ms. Past 16 tiles (images over 8x8) fewer channels lost: 64
// channels 10x10 0.11 -> 0.12 / 0.053 -> 0.076 ms, 16 channels 12x12 0.025 ->
// 0.034 ms.
// With fewer channels only 16 tiles were measured (7x7 and 8x8), so that is
// all F(2x2) takes there; and only images of at least 2x2 tiles, not a row or
// two of them (a 1-row output would transform 4 input rows for 1).
constexpr int64_t kMinChannelsF2 = 16;
constexpr int64_t kMaxTilesF2FewChannels = 16;
constexpr int64_t kMinChannelsF2ManyTiles = 128;
constexpr int64_t kMinSideF2 = 4;

// Outputs per tile side, inputs per tile side and transform points.
struct Variant {
  int out, in, points;
  explicit Variant(int tile) : out(tile), in(tile + 2), points((tile + 2) * (tile + 2)) {
    assert(tile == 2 || tile == 4);
  }
};

// Tiles of `tile` outputs along `size` outputs, the last one partial.
int64_t tiles_along(int64_t size, int tile) { return (size + tile - 1) / tile; }

int64_t tile_count(const ConvGeometry& g, int tile) {
  return tiles_along(g.out_size[1], tile) * tiles_along(g.out_size[2], tile);
}

// Tiles one output transform call covers at most, whole tile rows (at least
// one): a few vectors' worth, so the rows it writes stay in L1.
constexpr int64_t kOutputTilesPerPass = 64;

// One block: tile rows [row0, row1) of one image.
struct Block {
  int64_t row0, row1, tiles;  // tiles = (row1 - row0) * tiles_w
};

struct Layout {
  Variant v;
  int64_t in_h, in_w, out_h, out_w, pad_top, pad_left, tiles_w, tiles_h;
};

// Zero-padded rows for the row transforms of the calling thread: up to six
// input (or four output) rows plus the transform's scratch, kept between calls.
float* row_buffer(size_t stride) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < 12 * stride) buffer.assign(12 * stride, 0.0f);
  return buffer.data();
}

// V[point][c][t] = B^T d B for input channels [c0, c1) and every tile t of
// the block, one tile row at a time.
void transform_inputs(const Layout& l, const Block& b, const float* x, int64_t c0, int64_t c1, int64_t channels,
                      float* v) {
  const int tile_in = l.v.in;
  const size_t stride = simd::winograd_row_floats(l.v.out, static_cast<size_t>(l.tiles_w));
  float* rows = row_buffer(stride);
  float* scratch = rows + tile_in * stride;
  // Columns [pad_left, pad_left + in_w) of each row hold the image or zeros;
  // the rest stays zero from here on.
  std::fill(rows, rows + tile_in * stride, 0.0f);
  const size_t point_stride = static_cast<size_t>(channels * b.tiles);
  for (int64_t c = c0; c < c1; ++c) {
    const float* plane = x + c * l.in_h * l.in_w;
    for (int64_t ty = b.row0; ty < b.row1; ++ty) {
      for (int64_t i = 0; i < tile_in; ++i) {
        const int64_t yy = ty * l.v.out - l.pad_top + i;
        float* row = rows + static_cast<size_t>(i) * stride + l.pad_left;
        if (yy >= 0 && yy < l.in_h) {
          std::memcpy(row, plane + yy * l.in_w, sizeof(float) * static_cast<size_t>(l.in_w));
        } else {
          std::fill(row, row + l.in_w, 0.0f);
        }
      }
      simd::winograd_input_row(l.v.out, rows, stride, static_cast<size_t>(l.tiles_w), scratch,
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
  const int tile = l.v.out;
  const int64_t rows_per_pass = std::max<int64_t>(1, kOutputTilesPerPass / l.tiles_w);
  const size_t stride = simd::winograd_row_floats(tile, static_cast<size_t>(rows_per_pass * l.tiles_w));
  float* rows = row_buffer(stride);
  const size_t point_stride = static_cast<size_t>(channels * b.tiles);
  for (int64_t k = k0; k < k1; ++k) {
    float* plane = y + k * l.out_h * l.out_w;
    const float add = bias ? bias[k] : 0.0f;
    for (int64_t ty0 = b.row0; ty0 < b.row1; ty0 += rows_per_pass) {
      const int64_t ty1 = std::min(b.row1, ty0 + rows_per_pass);
      simd::winograd_output_row(tile, m + k * b.tiles + (ty0 - b.row0) * l.tiles_w, point_stride,
                                static_cast<size_t>((ty1 - ty0) * l.tiles_w), add, clamp.clamp_min, clamp.clamp_max,
                                rows, stride);
      for (int64_t ty = ty0; ty < ty1; ++ty) {
        const float* tile_row = rows + (ty - ty0) * l.tiles_w * tile;
        const int64_t oy = ty * tile, count = std::min<int64_t>(tile, l.out_h - oy);
        for (int64_t i = 0; i < count; ++i) {
          std::memcpy(plane + (oy + i) * l.out_w, tile_row + static_cast<size_t>(i) * stride,
                      sizeof(float) * static_cast<size_t>(l.out_w));
        }
      }
    }
    const int64_t first = b.row0 * tile, last = std::min(l.out_h, b.row1 * tile);
    if (residual) {
      fused::add_residual_and_activate(act, plane + first * l.out_w, residual + (k * l.out_h + first) * l.out_w,
                                       (last - first) * l.out_w);
    } else if (fused::needs_pass(act)) {
      apply_fused_activation(act, plane + first * l.out_w, (last - first) * l.out_w);
    }
  }
}

}  // namespace

int winograd_tile(const ConvGeometry& g) {
  if (g.spatial_rank != 2 || g.group != 1 || g.kernel[1] != 3 || g.kernel[2] != 3) return 0;
  if (g.stride[1] != 1 || g.stride[2] != 1 || g.dilation[1] != 1 || g.dilation[2] != 1) return 0;
  const int64_t channels = std::min(g.in_channels, g.out_channels);
  if (channels >= kMinChannels && tile_count(g, 4) >= kMinTiles) return 4;
  const int64_t tiles2 = tile_count(g, 2);
  if (tiles2 < kMinTiles || channels < kMinChannelsF2) return 0;
  if (g.out_size[1] < kMinSideF2 || g.out_size[2] < kMinSideF2) return 0;
  return tiles2 <= kMaxTilesF2FewChannels || channels >= kMinChannelsF2ManyTiles ? 2 : 0;
}

WinogradWeights winograd_pack_weights(const ConvGeometry& g, const float* w) {
  const int64_t cout = g.out_channels, cin = g.in_channels;
  const Variant v(winograd_tile(g));
  // u[point][k][c]: the transform G g G^T of each 3x3 filter.
  std::vector<float> u(static_cast<size_t>(v.points * cout * cin));
  winograd_transform_weights(v.out, w, cout * cin, u.data());
  WinogradWeights packed;
  packed.tile = v.out;
  for (int p = 0; p < v.points; ++p) {
    packed.points.push_back(pack_a(false, cout, cin, u.data() + p * cout * cin, cin));
  }
  return packed;
}

void winograd_conv(const ConvGeometry& g, const WinogradWeights& u, const float* x, const float* bias,
                   const float* residual, const fb::FusedActivationT* act, float* y, ThreadPool& pool) {
  const int64_t cin = g.in_channels, cout = g.out_channels;
  const Layout l{Variant(u.tile),
                 g.in_size[1],
                 g.in_size[2],
                 g.out_size[1],
                 g.out_size[2],
                 g.pad_begin[1],
                 g.pad_begin[2],
                 tiles_along(g.out_size[2], u.tile),
                 tiles_along(g.out_size[1], u.tile)};
  const int points = l.v.points;
  const int64_t row_bytes = points * (cin + cout) * l.tiles_w * int64_t{sizeof(float)};
  const int64_t rows_per_block = std::clamp<int64_t>(kBlockBytes / row_bytes, 1, l.tiles_h);
  // The output transform reads up to a vector past the last tile.
  float* v =
      thread_scratch(static_cast<size_t>(points * (cin + cout) * rows_per_block * l.tiles_w) + simd::kWinogradLanes);
  const int64_t in_image = cin * l.in_h * l.in_w, out_image = cout * l.out_h * l.out_w;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t row0 = 0; row0 < l.tiles_h; row0 += rows_per_block) {
      Block b{row0, std::min(l.tiles_h, row0 + rows_per_block), 0};
      b.tiles = (b.row1 - b.row0) * l.tiles_w;
      float* m = v + points * cin * b.tiles;
      // Three phases, each spread over the pool: the GEMMs are independent
      // across the points, so each runs whole on one thread.
      pool.parallel_for(cin, 1,
                        [&](int64_t c0, int64_t c1) { transform_inputs(l, b, x + n * in_image, c0, c1, cin, v); });
      pool.run(points, [&](int64_t p) {
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
