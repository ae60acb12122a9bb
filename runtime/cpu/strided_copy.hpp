// The copy engine of the data-movement kernels (Transpose, Slice, Concat,
// Split, Expand, Tile, DepthToSpace...): each of them is a copy between two
// strided views of the same index space, dtype-agnostic (elements are moved
// by size).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mote/tensor.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// For every index i of `shape`: dst[sum_k i_k * dst_strides[k]] =
// src[sum_k i_k * src_strides[k]], strides in elements. A source stride may be
// 0 (broadcast) or negative (reversed); the pointers passed to copy_strided
// address index 0.
struct StridedCopy {
  Shape shape;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
};

// Collapses mergeable dimensions, then picks the fastest inner loop: memcpy
// of contiguous runs, a fill for broadcast runs, a blocked 2-D tile transpose
// when the source's contiguous dimension is not the destination's, or a plain
// strided loop. Splits the outer dimensions over `pool` when large.
void copy_strided(const void* src, void* dst, size_t elem_size, const StridedCopy& copy, ThreadPool& pool);

// memcpy of `bytes`, split over `pool` when large.
void copy_contiguous(const void* src, void* dst, size_t bytes, ThreadPool& pool);

// Writes `count` copies of the element at `value` (elem_size bytes) to `dst`.
void fill_elements(void* dst, const void* value, size_t elem_size, int64_t count);

// Copies one element of elem_size bytes; constant sizes compile to one move.
inline void copy_element(void* dst, const void* src, size_t elem_size) {
  switch (elem_size) {
    case 1: std::memcpy(dst, src, 1); return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    default: std::memcpy(dst, src, elem_size);
  }
}

// Bytes a task should move at least before the pool is worth waking.
constexpr int64_t kMinBytesPerTask = 64 * 1024;

}  // namespace mote::cpu
