// The device profile table. A row names the devices it matches (vendor id,
// device type) and the tile sizes Mote's kernels use there, with where the
// numbers come from: a measurement on such a device (named, dated) or, for
// devices nobody has measured Mote on yet, a vendor's optimisation guide.
// The first matching row wins; the last row matches every device.
#include "runtime/vulkan/device_profile.hpp"

#include <cstdio>

namespace mote::vk {
namespace {

constexpr uint32_t kAnyVendor = 0;
constexpr uint32_t kNvidiaVendor = 0x10de;

// CPU-type devices are drivers that run shaders on the host (lavapipe,
// SwiftShader); GPUs are every other device type.
enum class Kind { kCpuType, kGpu, kAny };

struct ProfileRow {
  const char* name;
  uint32_t vendor_id;  // kAnyVendor matches any vendor
  Kind kind;
  GemmTileLimits gemm;
};

constexpr ProfileRow kRows[] = {
    // Drivers that run shaders on the CPU pay a loop over the SIMD lanes for
    // every load instruction, so few loads per FMA win: 32 x 4 results per
    // invocation measured fastest on lavapipe (ResNet-18 1.6x faster than
    // 16 x 2, 2026-11-21).
    {"CPU-type device (lavapipe)", kAnyVendor, Kind::kCpuType, {false, 64, 32, 4, 32}},
    // NVIDIA H200, driver 580.159 (2026-11-30, tests/bench/gpu): the
    // register core ran MatMuls at 3.8-5.7 TFLOP/s of the 51 cuBLAS reaches
    // (every k step of each invocation waits on its own loads of C) and
    // ResNet-50 in 23.8 ms; the shared-memory core with tiles chosen for
    // 128, 512 and 32 workgroups ran ResNet-50 in 5.3, 2.9 and 11.2 ms
    // (split-K filling the GPU at 7x7), MobileNetV2 in 0.96, 0.96, 1.09.
    {"NVIDIA GPU", kNvidiaVendor, Kind::kGpu, {true, 64, 32, 4, 32, 512}},
    // Any device no row above describes: lavapipe's tile until measured.
    {"generic", kAnyVendor, Kind::kAny, {false, 64, 32, 4, 32}},
};

bool matches(const ProfileRow& row, const DeviceInfo& info) {
  if (row.vendor_id != kAnyVendor && row.vendor_id != info.vendor_id) return false;
  bool cpu_type = info.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  return row.kind == Kind::kAny || (row.kind == Kind::kCpuType) == cpu_type;
}

// The shader's constraints (gemm_tile.glsl) and the device's limits.
Status check_tile(const GemmTileLimits& t, const DeviceFeatures& f) {
  if (t.tm < 4 || t.tm > 64 || t.tm % 4 != 0) return invalid_argument("tm must be a multiple of 4 from 4 to 64");
  if (t.tn < 1 || t.tn > 8) return invalid_argument("tn must be 1 to 8");
  if (t.tm * t.tn > 256) return invalid_argument("tm x tn must be at most 256 (registers per invocation)");
  if (t.bk < 1 || t.bk > 256) return invalid_argument("bk must be 1 to 256");
  if (t.lx < 8 || t.lx > f.max_workgroup_invocations || t.lx > f.max_workgroup_size[0]) {
    return invalid_argument("lx must be at least 8 and within the device's workgroup size (" +
                            std::to_string(f.max_workgroup_invocations) + ")");
  }
  if (t.bk * t.tm * 4 > f.max_shared_memory) {
    return invalid_argument("bk x tm x 4 bytes exceeds the device's " + std::to_string(f.max_shared_memory) +
                            " bytes of shared memory");
  }
  return {};
}

// "shared" or "shared:N" (N workgroups at least), or the register core's
// "LXxTMxTNxBK".
Result<GemmTileLimits> parse_gemm_override(const char* text, const DeviceFeatures& features) {
  GemmTileLimits t;
  char end = 0;
  std::string value = text;
  if (value == "shared" || value.rfind("shared:", 0) == 0) {
    t.shared_core = true;
    if (value != "shared" && (std::sscanf(text + 7, "%u%c", &t.min_workgroups, &end) != 1 || t.min_workgroups == 0)) {
      return invalid_argument("MOTE_VK_GEMM_TILE=" + value + ": expected shared:N with N workgroups, N > 0");
    }
    return t;
  }
  if (std::sscanf(text, "%ux%ux%ux%u%c", &t.lx, &t.tm, &t.tn, &t.bk, &end) != 4) {
    return invalid_argument("MOTE_VK_GEMM_TILE=" + value +
                            ": expected LXxTMxTNxBK (the register core, e.g. 128x16x4x16), shared or shared:N");
  }
  if (Status s = check_tile(t, features); !s.ok()) {
    return invalid_argument("MOTE_VK_GEMM_TILE=" + value + ": " + s.message());
  }
  return t;
}

}  // namespace

std::string describe(const GemmTileLimits& t) {
  char buf[96];
  if (t.shared_core) {
    std::snprintf(buf, sizeof buf, "shared-memory core, tiles for at least %u workgroups", t.min_workgroups);
  } else {
    std::snprintf(buf, sizeof buf, "register core, lx %u, tm %u, tn %u, bk %u", t.lx, t.tm, t.tn, t.bk);
  }
  return buf;
}

Result<DeviceProfile> choose_profile(const DeviceInfo& info, const DeviceFeatures& features,
                                     const char* gemm_override) {
  DeviceProfile profile;
  for (const ProfileRow& row : kRows) {
    if (!matches(row, info)) continue;
    profile.row = row.name;
    profile.gemm = row.gemm;
    break;
  }
  if (gemm_override && *gemm_override) {
    MOTE_ASSIGN_OR_RETURN(profile.gemm, parse_gemm_override(gemm_override, features));
    profile.row += std::string(", GEMM tile from MOTE_VK_GEMM_TILE=") + gemm_override;
  }
  // A row's tile may not fit a small device: shrink its depth step until the
  // shared tile fits (the shader accepts any bk).
  while (!profile.gemm.shared_core && profile.gemm.bk > 1 &&
         profile.gemm.bk * profile.gemm.tm * 4 > features.max_shared_memory) {
    profile.gemm.bk /= 2;
  }
  return profile;
}

}  // namespace mote::vk
