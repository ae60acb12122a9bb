// The copy engine of Pad (every mode) and nearest-neighbour Resize: copies in
// which each output coordinate takes its source coordinate from a per-axis
// table, independently of the other axes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mote/tensor.hpp"

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// out[o_0, ..., o_n] = in[maps[0][o_0], ..., maps[n][o_n]], or the element
// at `fill` where any maps[k][o_k] is -1 (which needs `fill`). maps[k] has
// out_shape[k] entries in [-1, in_shape[k]).
//
// Trailing axes mapped onto themselves are copied as blocks; along the
// innermost mapped axis, runs of consecutive sources become one memcpy; rows
// repeating the previous row's source are copied from the output.
void copy_axis_mapped(const void* src, const Shape& in_shape, void* dst, const Shape& out_shape, size_t elem_size,
                      const std::vector<std::vector<int64_t>>& maps, const void* fill, ThreadPool& pool);

}  // namespace mote::cpu
