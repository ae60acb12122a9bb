// Iteration of elementwise ops over inputs broadcast to one output shape
// (ONNX multidirectional broadcasting), for the binary ops, Where and the
// variadic Min/Max.
//
// A plan reduces the shapes to the fewest dimensions: output dimensions of
// size 1 are dropped, and neighbouring dimensions merge wherever every input
// walks them as one (contiguously, or not at all). What remains is a set of
// rows along the innermost dimension in which each input either advances one
// element at a time (step 1) or repeats one element (step 0). The common
// layouts become a handful of long rows:
//   same shapes                 [N*C*H*W] one row, steps (1, 1)
//   scalar on either side       [n] one row, steps (1, 0) or (0, 1)
//   channel bias [N,C,H,W]+[C,1,1]  rows of H*W, steps (1, 0)
//   row bias [M,K]+[K]          rows of K, steps (1, 1), the bias restarting
// and a kernel supplies just one vectorised row function per op.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {

struct BroadcastPlan {
  static constexpr int kMaxInputs = 3;

  int num_inputs = 0;
  int64_t numel = 0;  // output elements
  // Collapsed output dimensions, outermost first; never empty (a scalar
  // output is one row of one element).
  Shape dims;
  // strides[k][d]: elements input k advances per step along dims[d]; 0 where
  // it is broadcast.
  std::array<std::vector<int64_t>, kMaxInputs> strides;

  int64_t row_length() const { return dims.back(); }
  // 1 when input k walks the row, 0 when it repeats one element along it.
  int64_t inner_step(int k) const { return strides[k].back(); }
};

// Plans `inputs` (each broadcastable to `out`, as the op's shape function
// checked) read as `out`. At most kMaxInputs inputs.
BroadcastPlan plan_broadcast(const Shape& out, const std::vector<Shape>& inputs);

// One contiguous run of output elements: out[out_offset + i] comes from
// input k's element offsets[k] + i * plan.inner_step(k), for i < length.
struct BroadcastSegment {
  std::array<int64_t, BroadcastPlan::kMaxInputs> offsets{};
  int64_t out_offset = 0;
  int64_t length = 0;
};

// Calls fn(const BroadcastSegment&) for each segment covering output
// elements [begin, end), in order. A template rather than std::function: rows
// may be short, and the per-row call should cost next to nothing.
template <class Fn>
void for_each_segment(const BroadcastPlan& plan, int64_t begin, int64_t end, Fn&& fn) {
  const int64_t row_length = plan.row_length();
  if (begin >= end || row_length <= 0) return;
  const int outer_rank = static_cast<int>(plan.dims.size()) - 1;
  const int inputs = plan.num_inputs;

  // Where `begin` lies: its row's coordinates along the outer dimensions, and
  // the input offsets of that row's first element.
  std::vector<int64_t> coord(static_cast<size_t>(outer_rank), 0);
  std::array<int64_t, BroadcastPlan::kMaxInputs> row_start{};
  int64_t row = begin / row_length;
  for (int d = outer_rank - 1; d >= 0; --d) {
    coord[d] = row % plan.dims[d];
    row /= plan.dims[d];
    for (int k = 0; k < inputs; ++k) row_start[k] += coord[d] * plan.strides[k][d];
  }

  BroadcastSegment segment;
  int64_t column = begin % row_length;
  for (int64_t at = begin; at < end;) {
    segment.out_offset = at;
    segment.length = std::min(row_length - column, end - at);
    for (int k = 0; k < inputs; ++k) segment.offsets[k] = row_start[k] + column * plan.inner_step(k);
    fn(static_cast<const BroadcastSegment&>(segment));
    at += segment.length;
    column = 0;
    // Next row: an odometer over the outer dimensions.
    for (int d = outer_rank - 1; d >= 0; --d) {
      for (int k = 0; k < inputs; ++k) row_start[k] += plan.strides[k][d];
      if (++coord[d] < plan.dims[d]) break;
      for (int k = 0; k < inputs; ++k) row_start[k] -= plan.dims[d] * plan.strides[k][d];
      coord[d] = 0;
    }
  }
}

// Splits the output elements over `pool` in chunks of at least `grain`
// elements and calls fn for every segment of every chunk.
template <class Fn>
void parallel_for_each_segment(ThreadPool& pool, const BroadcastPlan& plan, int64_t grain, Fn&& fn) {
  pool.parallel_for(plan.numel, grain, [&](int64_t begin, int64_t end) { for_each_segment(plan, begin, end, fn); });
}

}  // namespace mote::cpu
