// Reference DepthToSpace and SpaceToDepth: the ONNX index formulas, element
// by element. In a block of b x b pixels, (i, j) is the row and column.
#include "runtime/core/kernel.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

// DCR: out[n, c, y, x] = in[n, (i*b + j) * C_out + c, y/b, x/b]
// CRD: out[n, c, y, x] = in[n, (c*b + i) * b + j,     y/b, x/b]
Status depth_to_space(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::DepthSpaceAttrsT>(ctx.op);
  const int64_t b = a.blocksize;
  const int64_t out_channels = out.dim(1);
  std::vector<int64_t> o;
  for (int64_t e = 0; e < out.numel(); ++e) {
    unravel_index(e, out.shape(), o);
    const int64_t i = o[2] % b, j = o[3] % b;
    const int64_t c = a.mode == fb::DepthToSpaceMode::DCR ? (i * b + j) * out_channels + o[1] : (o[1] * b + i) * b + j;
    copy_element_at(in, ravel_index({o[0], c, o[2] / b, o[3] / b}, in.shape()), out, e);
  }
  return {};
}

// out[n, (i*b + j) * C_in + c, y, x] = in[n, c, y*b + i, x*b + j]
Status space_to_depth(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const int64_t b = attrs<fb::DepthSpaceAttrsT>(ctx.op).blocksize;
  const int64_t in_channels = in.dim(1);
  std::vector<int64_t> o;
  for (int64_t e = 0; e < out.numel(); ++e) {
    unravel_index(e, out.shape(), o);
    const int64_t block = o[1] / in_channels, c = o[1] % in_channels;
    const int64_t i = block / b, j = block % b;
    copy_element_at(in, ravel_index({o[0], c, o[2] * b + i, o[3] * b + j}, in.shape()), out, e);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(DepthToSpace, mote::reference::depth_to_space);
MOTE_REF_KERNEL(SpaceToDepth, mote::reference::space_to_depth);
