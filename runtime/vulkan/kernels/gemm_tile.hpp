// Tile shapes of the two GEMM cores (shaders/gemm_tile.glsl, the register
// core, and shaders/gemm_shared.glsl, the shared-memory core), used by the
// Gemm/MatMul and implicit-GEMM Conv kernels. The register core: a workgroup
// of `lx` invocations computes `tm` rows by lx * tn columns, walking the depth
// in steps of `bk` through a shared tile of the row operand. The shared core:
// lx = tx * ty invocations compute ty * tm rows by tx * tn columns, both
// operands staged through shared memory bk values of k at a time.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {

struct GemmTile {
  bool shared_core = false;
  uint32_t lx, tm, tn, bk;
  uint32_t tx = 0;  // the shared core's invocations along the columns (lx / tx along the rows)
  // The register core's variant that hands out the rows by subgroup
  // shuffles (gemm_tile.glsl, MOTE_SHUFFLE_ROWS).
  bool rows_by_shuffle = false;
  // The register core's columns in runs of four (gemm_tile.glsl,
  // COLUMN_QUADS), which the kernel sets where its operands allow.
  bool column_quads = false;

  uint32_t rows() const { return shared_core ? lx / tx * tm : tm; }
  uint32_t columns() const { return shared_core ? tx * tn : lx * tn; }
  std::array<uint32_t, 3> local() const { return {lx, 1, 1}; }
  // Specialisation constants 3..6 of gemm_tile.glsl / gemm_shared.glsl.
  std::vector<int32_t> constants() const {
    return {static_cast<int32_t>(tm), static_cast<int32_t>(tn), static_cast<int32_t>(bk),
            static_cast<int32_t>(shared_core ? tx : column_quads)};
  }
  // Whether this tile can run with column_quads: the register core with
  // whole quads of columns per invocation.
  bool takes_column_quads() const { return !shared_core && tn % 4 == 0; }
  // Workgroups along columns (x) and rows (y).
  std::array<int64_t, 2> groups(int64_t rows_total, int64_t cols) const {
    return {(cols + columns() - 1) / columns(), (rows_total + rows() - 1) / rows()};
  }
  // What placement shows: "64x32x2x32" (register core) or "shared 64x64".
  std::string text() const {
    if (shared_core) return "shared " + std::to_string(rows()) + "x" + std::to_string(columns());
    return std::to_string(lx) + "x" + std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(bk);
  }
  uint32_t shared_bytes() const { return shared_core ? bk * (rows() / 4 + 1 + columns() / 4) * 16 : bk * tm * 4; }
};

// The shared core's tiles, largest first: 64 x 64 outputs per workgroup of
// 256 invocations (4 x 4 each) and 32 x 32 of 64 invocations. Each keeps lx
// a multiple of the tile's columns (the C block's loads) and tm, tn
// multiples of 4 (vec4 reads). A 128 x 128 tile (8 x 8 each, bk 8) ran at
// 4.4-4.5 TFLOP/s on an NVIDIA H200 (2048^3 and 4096^3 MatMuls) where the
// 64 x 64 tile ran a 1024^3 MatMul at 14.6 (2026-11-30), so it is left out
// until that is understood.
inline constexpr GemmTile kSharedTiles[] = {
    {true, 256, 4, 4, 16, 16},
    {true, 64, 4, 4, 16, 8},
};

// What gemm_shared.glsl needs of a tile: whole rows of invocations, whole
// vec4s, and every invocation loading one column of the C block (otherwise
// its load loop would step by 0).
constexpr bool shared_tile_ok(const GemmTile& t) {
  return t.shared_core && t.tx > 0 && t.lx % t.tx == 0 && t.tm % 4 == 0 && t.tn % 4 == 0 && t.lx % (t.tx * t.tn) == 0;
}
static_assert(shared_tile_ok(kSharedTiles[0]) && shared_tile_ok(kSharedTiles[1]), "see shared_tile_ok");

// The tile for a product of `rows` x `cols` outputs, `batch` times (a
// workgroup z each). The register core: the device profile's tile, shrunk
// to the problem: 2 columns per invocation when there are fewer than 128 (a
// 7x7 image has 49; a 14x14 one keeps 4, so that its 1x1 layers take
// column quads: MobileNetV2's six of them 27.8 -> 16 ms on lavapipe), the
// workgroup narrowed to them in steps of 8 lanes (a CPU
// implementation's SIMD width); fewer rows when the problem has fewer (a
// matrix x vector product has one), but at least 4 (the shared tile holds
// vec4s of rows). The shared core: the largest tile that still gives the
// profile's min_workgroups (enough to fill the GPU), else the smallest.
// `most` is the device profile's limits or the tuned ones for this shape.
inline std::optional<GemmTile> pick_gemm_tile(int64_t rows, int64_t cols, int64_t batch, const GemmTileLimits& most,
                                              const DeviceFeatures& f) {
  if (most.shared_core) {
    std::optional<GemmTile> chosen;
    for (const GemmTile& t : kSharedTiles) {
      if (t.lx > f.max_workgroup_invocations || t.lx > f.max_workgroup_size[0]) continue;
      if (t.shared_bytes() > f.max_shared_memory) continue;
      chosen = t;
      auto [gx, gy] = t.groups(rows, cols);
      if (gx * gy * batch >= most.min_workgroups) break;
    }
    return chosen;
  }
  GemmTile t{false, most.lx, 4, cols >= 128 ? most.tn : std::min(most.tn, 2u), most.bk};
  while (t.tm < most.tm && t.tm < rows) t.tm *= 2;
  t.tm = std::min(t.tm, most.tm);
  int64_t lanes = (cols + t.tn - 1) / t.tn;
  t.lx = static_cast<uint32_t>(std::min<int64_t>(t.lx, (lanes + 7) / 8 * 8));
  t.lx = std::min({t.lx, f.max_workgroup_invocations, f.max_workgroup_size[0]});
  if (t.shared_bytes() > f.max_shared_memory) return std::nullopt;
  // Invocations 0 .. tm / 4 - 1 of every subgroup read one vec4 of rows
  // each, so every subgroup needs that many: a workgroup narrower than a
  // subgroup has only lx, and the last subgroup of one that is not a
  // multiple of the subgroup size has lx % subgroup_size.
  const uint32_t readers = t.tm / 4, rest = t.lx % f.subgroup_size;
  t.rows_by_shuffle =
      f.gemm_rows_by_shuffle && readers <= std::min(f.subgroup_size, t.lx) && (rest == 0 || rest >= readers);
  return t;
}

}  // namespace mote::vk
