// Where a tile of the blocked convolutions (pointwise_blocked, conv_blocked)
// stores its kRows pixels x kBlocks output blocks, and what it applies
// first: blocked_tile-inl.h reads it. Floats, not vectors, for the clamp: a
// struct's implicit constructor is not compiled for the SIMD target (GCC
// refused NEON vector members in one).
#pragma once

#include <cstdint>

#include "runtime/cpu/tile_activation.hpp"

namespace mote::cpu {

struct BlockedTileStore {
  float* y;               // the tile's first pixel in its first output block
  int64_t y_block;        // from one output block to the next
  const float* bias;      // the first output block's lanes
  const float* residual;  // in y's layout, or null
  float lo, hi;           // the clamp
  TileActivation activation;
  // Partial sums of earlier calls wait in y (resume); only the call that
  // adds the last input channels adds the bias and residual, clamps and
  // activates (finish).
  bool resume, finish;
};

}  // namespace mote::cpu
