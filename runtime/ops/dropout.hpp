// Dropout's mask: a pure function of (seed, step, element index), so the
// reference and CPU kernels (and any shader that copies these few lines)
// draw the same mask, and a resumed training run redraws it exactly. No
// random-number state exists: a counter-based hash replaces it.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// The 32-bit finaliser of MurmurHash3: a bijection in which every input bit
// flips each output bit with probability close to 1/2.
constexpr uint32_t dropout_mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

struct DropoutMask {
  uint32_t key = 0;        // mixes seed and step, once per run
  uint32_t threshold = 0;  // an element is dropped when its 24-bit draw is below this
  float scale = 1.0f;      // 1 / (1 - ratio), applied to kept elements

  // The key absorbs seed and step 32 bits at a time, so 64-bit values
  // (a step past 2^32) do not collide with small ones.
  DropoutMask(int64_t seed, int64_t step, float ratio) {
    const uint64_t words[] = {static_cast<uint64_t>(seed), static_cast<uint64_t>(step)};
    key = 0x9e3779b9u;
    for (uint64_t w : words) {
      key = dropout_mix(key ^ static_cast<uint32_t>(w));
      key = dropout_mix(key ^ static_cast<uint32_t>(w >> 32));
    }
    // P(draw < threshold) = threshold / 2^24 = ratio, to 2^-24.
    threshold = static_cast<uint32_t>(static_cast<double>(ratio) * 16777216.0 + 0.5);
    scale = static_cast<float>(1.0 / (1.0 - static_cast<double>(ratio)));
  }
  // Two rounds per element: consecutive indices give unrelated draws.
  bool keep(uint32_t index) const { return (dropout_mix(dropout_mix(index ^ key) + key) >> 8) >= threshold; }
};

// Ratio in [0, 1), else invalid_model.
Status check_dropout_ratio(float ratio);

// The mask of a training-mode Dropout for the value of its step input (an
// integer scalar), checked for the kernels.
Result<DropoutMask> dropout_mask(const fb::DropoutAttrsT& attrs, const Tensor& step);

}  // namespace mote
