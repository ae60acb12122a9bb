// Tile shapes of the register-tiled GEMM core (shaders/gemm_tile.glsl), used
// by the Gemm/MatMul and implicit-GEMM Conv kernels: a workgroup of `lx`
// invocations computes `tm` rows by lx * tn columns, walking the depth in
// steps of `bk` through a shared tile of the row operand.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {

struct GemmTile {
  uint32_t lx, tm, tn, bk;

  uint32_t columns() const { return lx * tn; }
  std::array<uint32_t, 3> local() const { return {lx, 1, 1}; }
  // Specialisation constants 3..5 of gemm_tile.glsl.
  std::vector<int32_t> constants() const {
    return {static_cast<int32_t>(tm), static_cast<int32_t>(tn), static_cast<int32_t>(bk)};
  }
  // Workgroups along columns (x) and rows (y).
  std::array<int64_t, 2> groups(int64_t rows, int64_t cols) const {
    return {(cols + columns() - 1) / columns(), (rows + tm - 1) / tm};
  }
};

// Up to 32 rows of 4 columns per invocation: on lavapipe, where every load
// in the inner loop costs a loop over the SIMD lanes, this ratio of FMAs to
// load instructions measured fastest (ResNet-18 1.6x faster than 16 x 2).
// Fewer columns (2) when there are few (a 7x7 image has 49), the workgroup
// narrowed to them in steps of 8 lanes (a CPU implementation's SIMD width);
// fewer rows when the problem has fewer (a matrix x vector product has one),
// but at least 4 (the shared tile holds vec4s of rows).
inline std::optional<GemmTile> pick_gemm_tile(int64_t rows, int64_t cols, const DeviceFeatures& f) {
  GemmTile t{64, 4, cols >= 256 ? 4u : 2u, 32};
  while (t.tm < 32 && t.tm < rows) t.tm *= 2;
  int64_t lanes = (cols + t.tn - 1) / t.tn;
  t.lx = static_cast<uint32_t>(std::min<int64_t>(t.lx, (lanes + 7) / 8 * 8));
  t.lx = std::min({t.lx, f.max_workgroup_invocations, f.max_workgroup_size[0]});
  if (t.bk * t.tm * 4 > f.max_shared_memory) return std::nullopt;
  return t;
}

}  // namespace mote::vk
