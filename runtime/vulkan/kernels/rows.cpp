#include "runtime/vulkan/kernels/rows.hpp"

#include <algorithm>

namespace mote::vk {

RowLaunch workgroup_per_row(const PlanContext& ctx, int64_t rows, int64_t row_length) {
  // Past a few elements per invocation, wider workgroups pay for their
  // longer fold; only two sizes, to keep the pipelines few.
  uint32_t want = row_length > 1024 ? 256u : 64u;
  uint32_t cap = std::min(ctx.features.max_workgroup_invocations, ctx.features.max_workgroup_size[0]);
  uint32_t local = 1;
  while (local * 2 <= std::min(want, cap)) local *= 2;
  return {ctx.groups_1d(rows, 1), {local, 1, 1}};
}

bool short_row_per_invocation(const PlanContext& ctx, int64_t row_length, int64_t passes_per_element) {
  return row_length <= int64_t{ctx.features.reduce_rows_per_invocation} &&
         row_length * passes_per_element <= kMaxInvocationLoop / 4;
}

ShaderId with_subgroups(const PlanContext& ctx, ShaderId plain, ShaderId subgroup) {
  return ctx.features.subgroup_arithmetic ? subgroup : plain;
}

}  // namespace mote::vk
