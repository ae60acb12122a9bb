// Optimised DepthToSpace and SpaceToDepth: the output viewed as 6-D (its
// spatial axes split into blocks) is a strided copy of the input, which
// copy_strided moves in tiles.
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/strided_copy.hpp"

namespace mote::cpu {
namespace {

// Output [N, C', H*b, W*b] viewed as [N, C', H, i, W, j]; the source channel
// is (i*b + j)*C' + c in DCR mode and (c*b + i)*b + j in CRD mode.
Status depth_to_space(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::DepthSpaceAttrsT>(ctx.op);
  const int64_t b = a.blocksize, n = in.dim(0), h = in.dim(2), w = in.dim(3), c_out = out.dim(1);
  const int64_t plane = h * w;
  const bool dcr = a.mode == fb::DepthToSpaceMode::DCR;
  StridedCopy copy;
  copy.shape = {n, c_out, h, b, w, b};
  copy.src_strides = {in.dim(1) * plane, dcr ? plane : b * b * plane, w,
                      dcr ? b * c_out * plane : b * plane, 1, dcr ? c_out * plane : plane};
  copy.dst_strides = contiguous_strides(copy.shape);
  copy_strided(in.raw(), out.raw(), dtype_size(in.dtype()), copy, *ctx.pool);
  return {};
}

// Output [N, b*b*C, H/b, W/b] viewed as [N, i, j, C, H/b, W/b], reading
// in[n, c, y*b + i, x*b + j].
Status space_to_depth(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const int64_t b = attrs<fb::DepthSpaceAttrsT>(ctx.op).blocksize;
  const int64_t n = in.dim(0), c = in.dim(1), w = in.dim(3);
  const int64_t plane = in.dim(2) * w;
  StridedCopy copy;
  copy.shape = {n, b, b, c, out.dim(2), out.dim(3)};
  copy.src_strides = {c * plane, w, 1, plane, b * w, b};
  copy.dst_strides = contiguous_strides(copy.shape);
  copy_strided(in.raw(), out.raw(), dtype_size(in.dtype()), copy, *ctx.pool);
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(DepthToSpace, mote::cpu::depth_to_space);
MOTE_CPU_KERNEL(SpaceToDepth, mote::cpu::space_to_depth);
