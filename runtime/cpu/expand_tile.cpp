// Optimised Expand and Tile, both strided copies whose source strides are 0
// along repeated axes: copy_strided turns broadcast rows into fills and
// repeated blocks into memcpys.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/strided_copy.hpp"

namespace mote::cpu {
namespace {

Status expand(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  StridedCopy copy{out.shape(), broadcast_strides(in.shape(), out.shape()), contiguous_strides(out.shape())};
  copy_strided(in.raw(), out.raw(), dtype_size(in.dtype()), copy, *ctx.pool);
  return {};
}

// Output axis k of size r_k * d_k is split in two: the repeat (source stride
// 0) and the position inside the input (the input's stride).
Status tile(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  if (out.numel() == 0) return {};
  const std::vector<int64_t> in_strides = contiguous_strides(in.shape());
  const std::vector<int64_t> out_strides = contiguous_strides(out.shape());
  StridedCopy copy;
  for (size_t k = 0; k < in_strides.size(); ++k) {
    const int64_t d = in.shape()[k];
    copy.shape.insert(copy.shape.end(), {out.shape()[k] / d, d});
    copy.src_strides.insert(copy.src_strides.end(), {0, in_strides[k]});
    copy.dst_strides.insert(copy.dst_strides.end(), {d * out_strides[k], out_strides[k]});
  }
  copy_strided(in.raw(), out.raw(), dtype_size(in.dtype()), copy, *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Expand, mote::cpu::expand);
MOTE_CPU_KERNEL(Tile, mote::cpu::tile);
