#include "runtime/vulkan/kernels/gemm_split.hpp"

#include <algorithm>

#include "runtime/vulkan/device_profile.hpp"

namespace mote::vk {
namespace {

constexpr int64_t kMinSplitDepth = 256;
constexpr int64_t kMaxParts = 64;

}  // namespace

SplitK plan_split_k(const GemmTile& tile, int64_t workgroups, int64_t rows, int64_t cols, int64_t depth,
                    const GemmTileLimits& limits, const DeviceFeatures& features) {
  const int64_t wanted = limits.min_workgroups;
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

const GemmTileLimits& gemm_limits(const PlanContext& ctx, int64_t rows, int64_t cols, int64_t depth, int64_t batch,
                                  bool* tuned) {
  if (tuned) *tuned = false;
  if (ctx.gemm_override) return *ctx.gemm_override;
  if (ctx.gemm_tuning) {
    if (auto it = ctx.gemm_tuning->entries.find(GemmShape{rows, cols, depth, batch});
        it != ctx.gemm_tuning->entries.end()) {
      if (tuned) *tuned = true;
      return it->second.tile;
    }
  }
  return ctx.features.gemm_tile;
}

Result<GemmLaunch> plan_gemm_launch(PlanContext& ctx, int64_t rows, int64_t cols, int64_t depth, int64_t batch) {
  const DeviceFeatures& f = ctx.features;
  const GemmShape shape{rows, cols, depth, batch};
  bool tuned = false;
  const GemmTileLimits* limits = &gemm_limits(ctx, rows, cols, depth, batch, &tuned);
  auto tile = pick_gemm_tile(rows, cols, batch, *limits, f);
  if (!tile) return ctx.unsupported("the device's shared memory or workgroup size is too small for the GEMM tiles");
  auto [gx, gy] = tile->groups(rows, cols);
  SplitK split = batch == 1 ? plan_split_k(*tile, gx * gy, rows, cols, depth, *limits, f) : SplitK{};
  const int64_t gz = split.parts > 1 ? split.parts : batch;
  if (gx > f.max_group_count[0] || gy > f.max_group_count[1] || gz > f.max_group_count[2]) {
    return ctx.unsupported("more workgroups than the device allows");
  }
  std::string launched = tile->text();
  if (split.parts > 1) launched += ", split-K " + std::to_string(split.parts);
  ctx.gemm_choices.push_back({shape, launched, tuned});
  return GemmLaunch{*tile, {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), static_cast<uint32_t>(gz)}, split};
}

TensorArg partial_sums(PlanContext& ctx, const GemmLaunch& launch, int64_t rows, int64_t cols, TensorArg alias) {
  return launch.split_k() ? ctx.add_scratch(DType::I32, int64_t{launch.split.parts} * rows * cols) : alias;
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
