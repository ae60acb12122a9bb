#include "runtime/vulkan/kernels/copy_strided.hpp"

#include "runtime/vulkan/kernels/shape_args.hpp"

namespace mote::vk {
namespace {

// copy_strided.comp's push constants.
struct CopyPush {
  uint32_t n, rank;
  int32_t base;
  uint32_t value;
  uint32_t row, dst_row, dst_offset, value_hi;
  std::array<uint32_t, kMaxPushRank> dims;
  std::array<int32_t, kMaxPushRank> stride, start;
  std::array<uint32_t, kMaxPushRank> lim;
};

bool fits_i32(int64_t v) { return v > -(int64_t{1} << 31) && v < (int64_t{1} << 31); }

// Drops size-1 axes and merges neighbours that step through the input as
// one (the outer stride is the inner extent), so reshapes become one axis
// and the shader does fewer divisions. Only in kUnchecked mode, where axes
// carry no bounds.
void simplify(StridedView& v) {
  if (v.mode != kUnchecked) return;
  StridedView out = v;
  out.dims.clear();
  out.stride.clear();
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (v.dims[d] == 1) continue;
    if (!out.dims.empty() && out.stride.back() == v.stride[d] * v.dims[d]) {
      out.dims.back() *= v.dims[d];
      out.stride.back() = v.stride[d];
      continue;
    }
    out.dims.push_back(v.dims[d]);
    out.stride.push_back(v.stride[d]);
  }
  if (out.dims.empty()) {
    out.dims = {1};
    out.stride = {1};
  }
  out.start.assign(out.dims.size(), 0);
  out.lim.assign(out.dims.size(), 0);
  v = std::move(out);
}

}  // namespace

ElementKind element_kind(DType dtype) {
  switch (dtype) {
    case DType::F32: return kKindFloat;
    case DType::I32: return kKindWord;
    case DType::I64:
    case DType::F64: return kKindDword;
    case DType::F16: return kKindHalf;
    case DType::Bool:
    case DType::I8:
    case DType::U8: return kKindByte;
  }
  return kKindWord;
}

uint32_t elements_per_invocation(ElementKind kind) {
  return kind == kKindByte ? 4 : (kind == kKindHalf ? 2 : 1);
}

StridedView dense_view(const Shape& shape) {
  StridedView v;
  v.dims = shape;
  v.stride = row_major_strides(shape);
  return v;
}

StridedView permuted_view(const Shape& in, const std::vector<int>& perm) {
  Shape strides = row_major_strides(in);
  StridedView v;
  for (int axis : perm) {
    v.dims.push_back(in[static_cast<size_t>(axis)]);
    v.stride.push_back(strides[static_cast<size_t>(axis)]);
  }
  return v;
}

Status add_strided_copy(PlanContext& ctx, StridedView v, TensorArg src, TensorArg dst, DType dtype) {
  int64_t n = shape_numel(v.dims);
  if (!fits_u32(n)) return ctx.unsupported("more than 2^31 elements");
  if (v.start.empty()) v.start.assign(v.dims.size(), 0);
  if (v.lim.empty()) v.lim.assign(v.dims.size(), 0);
  simplify(v);
  if (v.dims.size() > static_cast<size_t>(kMaxPushRank)) return ctx.unsupported("rank above 6");
  CopyPush push{};
  push.n = static_cast<uint32_t>(n);
  push.rank = static_cast<uint32_t>(v.dims.size());
  push.base = static_cast<int32_t>(v.base);
  push.value = static_cast<uint32_t>(v.value);
  push.value_hi = static_cast<uint32_t>(v.value >> 32);
  push.row = static_cast<uint32_t>(v.row);
  push.dst_row = static_cast<uint32_t>(v.dst_row);
  push.dst_offset = static_cast<uint32_t>(v.dst_offset);
  push.dims.fill(1);
  size_t slot = kMaxPushRank - v.dims.size();
  for (size_t d = 0; d < v.dims.size(); ++d, ++slot) {
    if (!fits_i32(v.stride[d] * v.dims[d]) || !fits_i32(v.start[d])) return ctx.unsupported("offsets past 2^31");
    push.dims[slot] = static_cast<uint32_t>(v.dims[d]);
    push.stride[slot] = static_cast<int32_t>(v.stride[d]);
    push.start[slot] = static_cast<int32_t>(v.start[d]);
    push.lim[slot] = static_cast<uint32_t>(v.lim[d]);
  }
  ElementKind kind = element_kind(dtype);
  int64_t per = elements_per_invocation(kind);
  ctx.dispatch(ShaderId::kCopyStrided, {src, dst}, push, ctx.groups_1d((n + per - 1) / per, 64)).constants = {
      v.mode, kind};
  return {};
}

}  // namespace mote::vk
