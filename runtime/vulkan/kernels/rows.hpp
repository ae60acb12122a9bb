// Launch shapes shared by the kernels built on shaders/workgroup_reduce.glsl
// (Reduce*, Softmax, the normalisations): one workgroup per row, or one
// invocation per row where rows are short and interleaved in memory.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {

// Loop iterations beyond which one invocation per row stops being a good
// launch shape (a heuristic). The hard limit some drivers impose on loops is
// DeviceFeatures::max_loop_iterations (lavapipe: 65535, see quirks.cpp);
// kernels estimate their per-invocation iterations against it and send
// larger work to the CPU.
constexpr int64_t kMaxInvocationLoop = 65535;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct RowLaunch {
  std::array<uint32_t, 3> groups{1, 1, 1};
  std::array<uint32_t, 3> local{64, 1, 1};
};

// One workgroup per row of `row_length` elements: 64 invocations for short
// rows, else up to 256 (the shaders' WG_MAX), a power of two the device
// allows. Rows spread over groups x and y (shaders use wg_row()).
RowLaunch workgroup_per_row(const PlanContext& ctx, int64_t rows, int64_t row_length);

// Whether contiguous rows of `row_length` elements, each costing
// `passes_per_element` loop iterations, fold one per invocation instead of a
// workgroup per row: as short as the device profile asks
// (DeviceFeatures::reduce_rows_per_invocation; CPU-type devices) and within
// kMaxInvocationLoop / 4.
bool short_row_per_invocation(const PlanContext& ctx, int64_t row_length, int64_t passes_per_element);

// `subgroup` (a *_subgroup.comp twin) when the device has subgroup
// arithmetic, else `plain`.
ShaderId with_subgroups(const PlanContext& ctx, ShaderId plain, ShaderId subgroup);

}  // namespace mote::vk
