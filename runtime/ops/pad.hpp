// Pad: what its shape function and kernels share.
#pragma once

#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// Per data axis, the elements added before and after (negative: removed).
struct PadAmounts {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
};

// Reads 'pads' ([begin per axis..., end per axis...] over 'axes', or over
// every axis when `axes` is null) and checks the result is valid in `mode`:
// the mode is known, crops stay within the data, and edge, reflect and wrap
// have data to copy.
Result<PadAmounts> resolve_pads(const Shape& data, const Tensor& pads, const Tensor* axes, fb::PadMode mode);

// The input index that output index `o` of one axis copies, or -1 for the
// constant. Negative pads crop first; the modes then extend what is left
// (reflect and wrap repeat periodically, as numpy.pad does, for pads wider
// than the data).
int64_t pad_source_index(fb::PadMode mode, int64_t o, int64_t in_dim, int64_t begin, int64_t end);

}  // namespace mote
