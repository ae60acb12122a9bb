// SIMD transforms of the Winograd convolutions F(4x4, 3x3) and F(2x2, 3x3)
// (conv_winograd), one row of tiles of one channel at a time. `tile` is the
// outputs per tile side, 4 or 2; a tile reads tile + 2 inputs per side, and
// tile t starts at column tile * t. The 1-D transform down the columns runs
// along image rows (contiguous); the one across a tile reads its columns with
// de-interleaving loads, so a vector holds the same point of consecutive
// tiles and nothing is gathered element by element.
#pragma once

#include <cstddef>

namespace mote::cpu::simd {

// Tiles a vector holds at most; buffers are padded to multiples of it.
constexpr size_t kWinogradLanes = 16;

// Floats a padded row must hold for `tiles` tiles of `tile` outputs a side:
// the widest de-interleaving load of the last vector of tiles reads that far.
inline size_t winograd_row_floats(int tile, size_t tiles) {
  const size_t t = static_cast<size_t>(tile);
  return (tiles + kWinogradLanes - 1) / kWinogradLanes * kWinogradLanes * t + t + kWinogradLanes;
}

// Input transform B^T d B of `tiles` tiles. `rows` holds the tile + 2 input
// rows of the tile row, `stride` floats apart (stride >= winograd_row_floats),
// already zero-padded: tile t covers columns [tile * t, tile * t + tile + 2).
// `scratch` holds (tile + 2) * stride floats. Point p (row-major in the
// transform domain) of tile t goes to out[p * point_stride + t]; nothing past
// tile `tiles` is written.
void winograd_input_row(int tile, const float* rows, size_t stride, size_t tiles, float* scratch, float* out,
                        size_t point_stride);

// Output transform clamp(A^T m A + bias, lo, hi) of `tiles` tiles: point p of
// tile t is read from m[p * point_stride + t] (reads may run up to a vector
// past `tiles`), and the `tile` output rows are written `stride` floats apart
// to `rows` (stride >= winograd_row_floats), tile t at columns
// [tile * t, tile * t + tile).
void winograd_output_row(int tile, const float* m, size_t point_stride, size_t tiles, float bias, float lo, float hi,
                         float* rows, size_t stride);

}  // namespace mote::cpu::simd
