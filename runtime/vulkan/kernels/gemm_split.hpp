// Split-K for the shared-memory GEMM core (shaders/gemm_shared.glsl): a
// product whose output tiles are too few to fill a GPU (a 7x7 feature map
// with 512 channels is 16 x 2 workgroups of 32 x 32 on a GPU of 132
// multiprocessors, each summing 4,608 values of k) has its depth cut into
// parts, one workgroup z each, writing raw sums to a scratch buffer; a second
// dispatch (shaders/gemm_split_reduce.comp) adds the parts and applies the
// epilogue (alpha, bias, residual, activation).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "runtime/vulkan/kernels/gemm_tile.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

struct SplitK {
  uint32_t parts = 1;    // workgroups along z; 1 = no split
  uint32_t k_chunk = 0;  // values of k per part (whole bk steps)
};

// The split for a product of `rows` x `cols` outputs over `depth` on `tile`,
// whose output alone gives `workgroups`: enough parts to reach
// limits.min_workgroups, no more than depth / kMinSplitDepth (256) of them
// (shorter parts and the extra pass over the partial sums outweighs the
// gain). Parts are whole bk steps, so the last one may be shorter (depth 519
// in two: 272 + 247).
SplitK plan_split_k(const GemmTile& tile, int64_t workgroups, int64_t rows, int64_t cols, int64_t depth,
                    const GemmTileLimits& limits, const DeviceFeatures& features);

// How one GEMM dispatch is launched: its tile, workgroups along x (columns),
// y (rows) and z (the batch, or the split's parts), and the split.
struct GemmLaunch {
  GemmTile tile;
  std::array<uint32_t, 3> groups;
  SplitK split;
  bool split_k() const { return split.parts > 1; }
  // The one of an op's three GEMM shaders (e.g. kConvGemm, kConvGemmShuffle,
  // kConvGemmShared) that runs this tile.
  ShaderId shader(ShaderId register_core, ShaderId rows_by_shuffle, ShaderId shared_core) const {
    if (tile.shared_core) return shared_core;
    return tile.rows_by_shuffle ? rows_by_shuffle : register_core;
  }
};

// The launch of a product of `rows` x `cols` outputs over `depth`, `batch`
// times (split-K only for one), or kUnsupported when the device's shared
// memory, workgroup size or workgroup counts cannot take it. The tile limits
// come from ctx (override, tuned entry or profile); the choice is recorded
// in ctx.gemm_choices.
Result<GemmLaunch> plan_gemm_launch(PlanContext& ctx, int64_t rows, int64_t cols, int64_t depth, int64_t batch);
// The tile limits plan_gemm_launch takes for that product: the override,
// else the tuned entry for its shape (then *tuned is set), else the device
// profile's.
const GemmTileLimits& gemm_limits(const PlanContext& ctx, int64_t rows, int64_t cols, int64_t depth, int64_t batch,
                                  bool* tuned = nullptr);

// The buffer the GEMM writes its raw partial sums to: a scratch of
// parts x rows x cols f32 (an I32 scratch, so that f16 storage does not
// shrink it) with a split, else `alias` (bound, never written).
TensorArg partial_sums(PlanContext& ctx, const GemmLaunch& launch, int64_t rows, int64_t cols, TensorArg alias);

// The epilogue's layout: out(row, col) is
// y[(col / cols_per_image) * image_stride + row * y_sr + (col % cols_per_image) * y_sc],
// the bias bias[row * bias_sr + col * bias_sc] times beta.
struct SplitReducePush {
  uint32_t rows, cols, splits, cols_per_image, image_stride, y_sr, y_sc, bias_sr, bias_sc;
  float alpha, beta, act_a, act_b;
};
static_assert(sizeof(SplitReducePush) == 52, "must match gemm_split_reduce.comp's push block");

// The second pass: sums `partial` (SplitK::parts x rows x cols f32) into y.
void dispatch_split_reduce(PlanContext& ctx, TensorArg partial, const SplitReducePush& push,
                           std::optional<TensorArg> bias, std::optional<TensorArg> residual, TensorArg y,
                           int32_t act_code);

}  // namespace mote::vk
