// Reference Expand and Tile: element by element.
#include "runtime/core/kernel.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// Shapes align on the right; a size-1 input axis repeats its one element.
Status expand(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const size_t skipped = out.shape().size() - in.shape().size();
  std::vector<int64_t> out_index, in_index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), out_index);
    in_index.assign(out_index.begin() + static_cast<int64_t>(skipped), out_index.end());
    for (size_t k = 0; k < in_index.size(); ++k) {
      if (in.shape()[k] == 1) in_index[k] = 0;
    }
    copy_element_at(in, ravel_index(in_index, in.shape()), out, i);
  }
  return {};
}

// out[i_0, ...] = in[i_0 mod d_0, ...]
Status tile(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  std::vector<int64_t> index;
  for (int64_t i = 0; i < out.numel(); ++i) {
    unravel_index(i, out.shape(), index);
    for (size_t k = 0; k < index.size(); ++k) index[k] %= in.shape()[k];
    copy_element_at(in, ravel_index(index, in.shape()), out, i);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Expand, mote::reference::expand);
MOTE_REF_KERNEL(Tile, mote::reference::tile);
