// Views for copy_strided.comp and gather.comp: the data-movement kernels
// describe where each output element comes from as a StridedView and add it
// with add_strided_copy, whatever the dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// How an element is stored on the device (move.glsl's KIND).
enum ElementKind : int32_t {
  kKindFloat = 0,  // F32: f32 or f16 storage
  kKindWord = 1,   // I32
  kKindDword = 2,  // I64, F64
  kKindByte = 3,   // Bool, I8, U8: four to a word
  kKindHalf = 4,   // F16 data: two to a word
};
ElementKind element_kind(DType dtype);
// Elements each invocation writes: a whole word for the packed kinds.
uint32_t elements_per_invocation(ElementKind kind);

// copy_strided.comp's MODE: what an input coordinate outside [0, lim) means.
enum CopyMode : int32_t { kUnchecked = 0, kConstant = 1, kEdge = 2, kReflect = 3, kWrap = 4 };

// Output element c (coordinates over `dims`) reads input element
//   base + sum_d (c_d + start_d) * stride_d,
// with `mode` applied per axis against lim_d. `start` and `lim` may be left
// empty in kUnchecked mode.
struct StridedView {
  Shape dims;
  std::vector<int64_t> stride;
  std::vector<int64_t> start;
  std::vector<int64_t> lim;
  int64_t base = 0;
  CopyMode mode = kUnchecked;
  uint64_t value = 0;  // the constant's bits in kConstant mode (low bytes for small dtypes)
  // Concat: domain element e lands on (e / row) * dst_row + dst_offset + e % row.
  int64_t row = 0, dst_row = 0, dst_offset = 0;
};

// The dense row-major view of `shape` (a plain copy when used as is).
StridedView dense_view(const Shape& shape);
// Output axis i reads input axis perm[i] of a dense tensor of shape `in`.
StridedView permuted_view(const Shape& in, const std::vector<int>& perm);

// Adds the dispatch of `view` from src to dst (both of `dtype`), merging
// axes that move together; kUnsupported past rank 6 or 2^31 elements.
Status add_strided_copy(PlanContext& ctx, StridedView view, TensorArg src, TensorArg dst, DType dtype);

}  // namespace mote::vk
