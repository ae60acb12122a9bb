// Reference Resize: per output element, the source coordinate on every axis;
// nearest copies the rounded input element, linear sums the 2^rank corners
// around the coordinate with products of their weights, in double.
#include "runtime/core/kernel.hpp"
#include "runtime/ops/resize.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/reference/element_index.hpp"

namespace mote::reference {
namespace {

Status resize(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  const auto& a = attrs<fb::ResizeAttrsT>(ctx.op);
  if (Status s = check_resize_supported(a); !s.ok()) return Status(s.code(), ctx.fail(s.message()).message());
  if (a.mode == fb::ResizeMode::Linear && in.dtype() != DType::F32) {
    return Status(StatusCode::kUnsupported, ctx.fail("linear mode needs f32 data").message());
  }
  auto axes = resize_axes(in.shape(), optional_input(ctx, 2), optional_input(ctx, 3));
  if (!axes.ok()) return ctx.fail(axes.status().message());
  const size_t rank = axes->size();

  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> index = unravel_index(i, out.shape());
    std::vector<double> coordinate(rank);
    for (size_t k = 0; k < rank; ++k) {
      coordinate[k] = resize_source_coordinate(a.coordinate_transformation_mode, index[k], (*axes)[k]);
    }
    if (a.mode == fb::ResizeMode::Nearest) {
      for (size_t k = 0; k < rank; ++k) index[k] = resize_nearest_index(a.nearest_mode, coordinate[k], in.shape()[k]);
      copy_element_at(in, ravel_index(index, in.shape()), out, i);
      continue;
    }
    double sum = 0;
    for (uint64_t corner = 0; corner < (uint64_t{1} << rank); ++corner) {
      double weight = 1;
      for (size_t k = 0; k < rank; ++k) {
        const LinearTap tap = resize_linear_tap(coordinate[k], in.shape()[k]);
        const bool upper = (corner >> k) & 1;
        index[k] = upper ? tap.upper : tap.lower;
        weight *= upper ? tap.upper_weight : 1 - tap.upper_weight;
      }
      sum += weight * in.data<float>()[ravel_index(index, in.shape())];
    }
    out.data<float>()[i] = static_cast<float>(sum);
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Resize, mote::reference::resize);
