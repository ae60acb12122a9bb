#include "runtime/vulkan/kernels/conv_plan.hpp"

#include "runtime/reference/fused_activation.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {

ConvWindow conv_window(const ConvGeometry& g) {
  return {static_cast<int32_t>(g.stride[kConvH]),     static_cast<int32_t>(g.stride[kConvW]),
          static_cast<int32_t>(g.pad_begin[kConvH]),  static_cast<int32_t>(g.pad_begin[kConvW]),
          static_cast<int32_t>(g.dilation[kConvH]),   static_cast<int32_t>(g.dilation[kConvW])};
}

Tensor transposed_matrices(const Tensor& m, int64_t count, int64_t rows, int64_t cols) {
  Tensor t = Tensor::zeros(DType::F32, {count, cols, rows});
  const float* from = m.data<float>();
  float* to = t.data<float>();
  for (int64_t n = 0; n < count; ++n, from += rows * cols, to += rows * cols) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) to[c * rows + r] = from[r * cols + c];
    }
  }
  return t;
}

Result<ConvGeometry> plannable_conv_geometry(PlanContext& ctx, bool transposed, std::initializer_list<DType> dtypes,
                                             size_t x, size_t w) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes(dtypes));
  if (!reference::fused_activation_known(ctx.op.fused.get())) return ctx.unsupported("unknown fused activation");
  const fb::ConvAttrsT& a = attrs<fb::ConvAttrsT>(ctx.op);
  auto resolved = transposed ? resolve_conv_transpose(a, ctx.in(x).shape(), ctx.in(w).shape())
                             : resolve_conv(a, ctx.in(x).shape(), ctx.in(w).shape());
  if (!resolved.ok()) return ctx.unsupported(resolved.status().message());
  if (resolved->spatial_rank == 3) {
    return ctx.unsupported(transposed ? "3-D transposed convolution runs on the CPU" : "3-D convolution runs on the CPU");
  }
  if (!fits_u32(ctx.in(x).numel()) || !fits_u32(ctx.in(w).numel()) || !fits_u32(ctx.out(0).numel())) {
    return ctx.unsupported("more than 2^31 elements");
  }
  if (ctx.out(0).numel() == 0) return ctx.unsupported("empty output");
  return resolved;
}

}  // namespace mote::vk
