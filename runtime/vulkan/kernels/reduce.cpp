// Vulkan kernels of the reductions: Reduce{Mean,Sum,Max,Min,Prod,L2} and the
// global pools on reduce.comp (or its subgroup twin), ArgMax/ArgMin on
// arg_reduce.comp. Float data only; integer and bool reductions run on the CPU.
#include <algorithm>
#include <vector>

#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/reduce.hpp"
#include "runtime/vulkan/kernels/rows.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

// reduce.comp's push block: kept and reduced axes as (size, stride) pairs.
struct ReducePush {
  uint32_t n_out = 1, n_red = 1, kept_rank = 0, red_rank = 0;
  std::array<uint32_t, 3> kept_dims{}, kept_strides{}, red_dims{}, red_strides{};
};

// Codes of reduce.comp's OP constant.
enum ReduceCode : int { kSum = 0, kMean, kMax, kMin, kProd, kL2 };

ReduceCode reduce_code(fb::OpType type) {
  switch (type) {
    case fb::OpType::ReduceMean:
    case fb::OpType::GlobalAveragePool: return kMean;
    case fb::OpType::ReduceMax:
    case fb::OpType::GlobalMaxPool: return kMax;
    case fb::OpType::ReduceMin: return kMin;
    case fb::OpType::ReduceProd: return kProd;
    case fb::OpType::ReduceL2: return kL2;
    default: return kSum;
  }
}

// Describes the reduction of `shape` over the `reduced` axes for reduce.comp:
// unit axes dropped, runs of adjacent kept (or reduced) axes merged into one
// axis, which leaves at most three of each for any rank up to 6. False when
// more remain. `inner_kept`: the innermost remaining axis is kept.
bool reduce_layout(const Shape& shape, const std::vector<bool>& reduced, ReducePush& push, bool& inner_kept) {
  struct Run {
    bool reduced;
    int64_t size, stride;
  };
  std::vector<Run> runs;
  const Shape strides = row_major_strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!runs.empty() && runs.back().reduced == reduced[d]) {
      runs.back().size *= shape[d];
      runs.back().stride = strides[d];  // the run is contiguous: its innermost stride
    } else {
      runs.push_back({reduced[d], shape[d], strides[d]});
    }
  }
  inner_kept = !runs.empty() && !runs.back().reduced;
  for (const Run& r : runs) {
    uint32_t& rank = r.reduced ? push.red_rank : push.kept_rank;
    if (rank == 3) return false;
    (r.reduced ? push.red_dims : push.kept_dims)[rank] = static_cast<uint32_t>(r.size);
    (r.reduced ? push.red_strides : push.kept_strides)[rank] = static_cast<uint32_t>(r.stride);
    (r.reduced ? push.n_red : push.n_out) *= static_cast<uint32_t>(r.size);
    ++rank;
  }
  return true;
}

Status dispatch_reduce(PlanContext& ctx, const std::vector<bool>& reduced, ReduceCode code) {
  const Shape& shape = ctx.in(0).shape();
  if (ctx.in(0).numel() == 0 || ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  if (!fits_u32(ctx.in(0).numel())) return ctx.unsupported("more than 2^31 elements");
  ReducePush push;
  bool inner_kept = false;
  if (!reduce_layout(shape, reduced, push, inner_kept)) {
    return ctx.unsupported("reduced and kept axes alternate more than three times");
  }
  // With nothing reduced (noop_with_empty_axes) the output is the input:
  // a fold of one element, which only L2 would alter.
  if (std::none_of(reduced.begin(), reduced.end(), [](bool r) { return r; }) && code == kL2) code = kSum;
  // Innermost axis kept: one invocation per output reads along with its
  // neighbours. A workgroup per output is better for long reductions of few
  // outputs, and on GPUs whenever the innermost axis is reduced (its
  // elements are contiguous); reductions up to the device profile's length
  // fold in one invocation each there (CPU-type drivers). Each element costs
  // a loop iteration per reduced axis to locate (kMaxInvocationLoop).
  const int64_t per_element = 1 + push.red_rank;
  const bool per_thread =
      inner_kept ? (push.n_out >= 1024 || push.n_red <= 64) && push.n_red * per_element <= kMaxInvocationLoop / 4
                 : short_row_per_invocation(ctx, push.n_red, per_element);
  std::vector<TensorArg> args = {ctx.input(0), ctx.output(0)};
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kReduce, args, push, push.n_out).constants = {code, 1};
  } else {
    RowLaunch launch = workgroup_per_row(ctx, push.n_out, push.n_red);
    if (ceil_div(push.n_red, launch.local[0]) * per_element + 64 > int64_t{ctx.features.max_loop_iterations}) {
      return ctx.unsupported("reduction of " + std::to_string(push.n_red) + " elements is too long per invocation");
    }
    ctx.dispatch(with_subgroups(ctx, ShaderId::kReduce, ShaderId::kReduceSubgroup), args, push, launch.groups,
                 launch.local)
        .constants = {code, 0};
  }
  return {};
}

Status plan_reduce(PlanContext& ctx) {
  if (ctx.in(0).dtype() != DType::F32) {
    return ctx.unsupported(std::string("input is ") + dtype_name(ctx.in(0).dtype()) + ", the Vulkan kernel takes f32");
  }
  const Tensor* axes = nullptr;
  if (ctx.has_input(1)) {
    if (!ctx.in(1).raw()) return ctx.unsupported("axes computed at run time");
    axes = &ctx.in(1);
  }
  auto reduced = reduce_axes_mask(attrs<fb::ReduceAttrsT>(ctx.op), axes, ctx.in(0).rank());
  if (!reduced.ok()) return reduced.status();
  return dispatch_reduce(ctx, *reduced, reduce_code(ctx.op.type));
}

// GlobalAveragePool / GlobalMaxPool: a reduction over every spatial axis.
Status plan_global_pool(PlanContext& ctx) {
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  std::vector<bool> reduced(ctx.in(0).shape().size(), true);
  reduced[0] = reduced[1] = false;
  return dispatch_reduce(ctx, reduced, reduce_code(ctx.op.type));
}

struct ArgReducePush {
  uint32_t n, axis, inner;
};

Status plan_arg_reduce(PlanContext& ctx) {
  if (ctx.in(0).dtype() != DType::F32) {
    return ctx.unsupported(std::string("input is ") + dtype_name(ctx.in(0).dtype()) + ", the Vulkan kernel takes f32");
  }
  if (!fits_u32(ctx.in(0).numel())) return ctx.unsupported("more than 2^31 elements");
  if (ctx.out(0).numel() == 0) return ctx.unsupported("empty tensor");
  const auto& a = attrs<fb::ArgReduceAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, ctx.in(0).rank());
  if (!axis.ok()) return axis.status();
  const AxisSplit s = split_at_axis(ctx.in(0).shape(), *axis);
  ArgReducePush push{static_cast<uint32_t>(s.outer * s.inner), static_cast<uint32_t>(s.axis),
                     static_cast<uint32_t>(s.inner)};
  const int32_t is_max = ctx.op.type == fb::OpType::ArgMax;
  // As for reductions: an invocation per output for short slices and for
  // many interleaved ones, else a workgroup per output.
  bool per_thread = s.axis <= 64 || (s.inner > 1 && push.n >= 1024 && s.axis <= kMaxInvocationLoop / 4);
  if (per_thread) {
    ctx.dispatch_1d(ShaderId::kArgReduce, {ctx.input(0), ctx.output(0)}, push, push.n).constants = {
        is_max, a.select_last_index, 1};
    return {};
  }
  RowLaunch launch = workgroup_per_row(ctx, push.n, s.axis);
  if (ceil_div(s.axis, launch.local[0]) + 16 > int64_t{ctx.features.max_loop_iterations}) {
    return ctx.unsupported("axis of " + std::to_string(s.axis) + " elements is too long per invocation");
  }
  ctx.dispatch(ShaderId::kArgReduce, {ctx.input(0), ctx.output(0)}, push, launch.groups, launch.local).constants = {
      is_max, a.select_last_index, 0};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(ReduceMean, mote::vk::plan_reduce);
MOTE_VK_KERNEL(ReduceSum, mote::vk::plan_reduce);
MOTE_VK_KERNEL(ReduceMax, mote::vk::plan_reduce);
MOTE_VK_KERNEL(ReduceMin, mote::vk::plan_reduce);
MOTE_VK_KERNEL(ReduceProd, mote::vk::plan_reduce);
MOTE_VK_KERNEL(ReduceL2, mote::vk::plan_reduce);
MOTE_VK_KERNEL(GlobalAveragePool, mote::vk::plan_global_pool);
MOTE_VK_KERNEL(GlobalMaxPool, mote::vk::plan_global_pool);
MOTE_VK_KERNEL(ArgMax, mote::vk::plan_arg_reduce);
MOTE_VK_KERNEL(ArgMin, mote::vk::plan_arg_reduce);
