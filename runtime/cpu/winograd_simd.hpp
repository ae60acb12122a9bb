// SIMD transforms of the Winograd F(4x4, 3x3) convolution (conv_winograd):
// each works on kWinogradLanes tiles at once, tile k in lane k of every row,
// so the arithmetic runs across tiles and never shuffles within one.
#pragma once

namespace mote::cpu::simd {

constexpr int kWinogradLanes = 16;

// out = B^T d B for each lane: d and out are [36][kWinogradLanes], the 6x6
// points of a tile row-major.
void winograd_input_tiles(const float* d, float* out);

// out = clamp(A^T m A + bias, lo, hi) for each lane: m is
// [36][kWinogradLanes], out [16][kWinogradLanes] (the 4x4 outputs).
void winograd_output_tiles(const float* m, float bias, float lo, float hi, float* out);

}  // namespace mote::cpu::simd
