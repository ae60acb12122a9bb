#include "runtime/vulkan/kernels/gemm_split.hpp"

#include <algorithm>

namespace mote::vk {
namespace {

constexpr int64_t kMinSplitDepth = 256;
constexpr int64_t kMaxParts = 64;

}  // namespace

SplitK plan_split_k(const GemmTile& tile, int64_t workgroups, int64_t rows, int64_t cols, int64_t depth,
                    const DeviceFeatures& features) {
  const int64_t wanted = features.gemm_tile.min_workgroups;
  if (!tile.shared_core || workgroups <= 0 || workgroups >= wanted) return {};
  int64_t parts = std::min({(wanted + workgroups - 1) / workgroups, depth / kMinSplitDepth, kMaxParts,
                            static_cast<int64_t>(features.max_group_count[2])});
  // The partial sums are indexed with 32 bits.
  while (parts > 1 && parts * rows * cols > (int64_t{1} << 31) - 1) --parts;
  if (parts < 2) return {};
  const int64_t step = tile.bk;
  int64_t chunk = ((depth + parts - 1) / parts + step - 1) / step * step;
  parts = (depth + chunk - 1) / chunk;
  if (parts < 2) return {};
  return {static_cast<uint32_t>(parts), static_cast<uint32_t>(chunk)};
}

void dispatch_split_reduce(PlanContext& ctx, TensorArg partial, const SplitReducePush& push,
                           std::optional<TensorArg> bias, std::optional<TensorArg> residual, TensorArg y,
                           int32_t act_code) {
  // Absent optional inputs are bound to Y and never read.
  ctx.dispatch_1d(ShaderId::kGemmSplitReduce, {partial, bias.value_or(y), residual.value_or(y), y}, push,
                  static_cast<int64_t>(push.rows) * push.cols)
      .constants = {act_code, bias ? 1 : 0, residual ? 1 : 0};
}

}  // namespace mote::vk
