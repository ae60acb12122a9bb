// The channel-blocked activation layout of the CPU backend.
//
// A 4-D float tensor [N, C, H, W] that passes only between CPU kernels able
// to read and write it is stored as [N][ceil(C / b)][H][W][b]: b consecutive
// channels of one pixel side by side, b = channel_block(), the float lanes
// of the machine's vectors. Depthwise convolutions then compute b channels
// per vector without transposing planes in and out, and 1x1, stem and
// strided convolutions write it from tiles of pixels x output blocks (the
// layout onnxruntime calls NCHWc). The lanes of the last block past C are padding:
// allocated, never read as results.
//
// ExecutionPlan chooses it per tensor (SessionOptions::channel_blocked_
// layout): a tensor is blocked when its producer and every reader say they
// take it (CpuKernel::blocked), it is not a graph output, inputs tied to an
// op's output (a Conv's residual) agree with it, and blocks gain something:
// a reader reads them faster, or the producer writes them from blocks.
// Kernels learn the choice from KernelContext::input_blocked /
// output_blocked.
#pragma once

#include <cstdint>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// What a CPU kernel can take in the channel-blocked layout, for one op with
// the shapes of a plan.
struct BlockedSupport {
  uint64_t inputs = 0;            // bit i: input i may be blocked
  bool output = false;            // output 0 may be blocked
  uint64_t same_as_output = 0;    // bit i: input i must be blocked exactly when output 0 is
  uint64_t only_with_output = 0;  // bit i: input i may be blocked only when output 0 is
  uint64_t output_only_with = 0;  // bit i: output 0 may be blocked only when input i is
  uint64_t indifferent = 0;       // bit i (with the same bit of `inputs`): blocks read no faster
};

// Channels per block on this machine: the float lanes the GEMM, depthwise,
// pointwise_blocked and conv_blocked kernels all use, or 0 where they differ
// (the layout is then not used). Follows the SIMD target chosen now (tests force others).
int64_t channel_block();

// An error unless `planned`, the block a plan sized its blocked tensors for,
// is still this machine's (the SIMD target was not changed since).
Status check_channel_block(int64_t planned);

// Bytes of a blocked [N, C, H, W] float tensor, its padding included.
inline uint64_t blocked_bytes(const Shape& shape, int64_t block) {
  const int64_t blocks = (shape[1] + block - 1) / block;
  return static_cast<uint64_t>(shape[0] * blocks * block * shape[2] * shape[3]) * sizeof(float);
}

}  // namespace mote
