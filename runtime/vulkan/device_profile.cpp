// The device profile table. A row names the devices it matches (vendor id,
// device type) and the GEMM core and tile Mote's kernels use there, with the
// measurement it comes from (device, driver, date; tests/bench/gpu), or the
// vendor guide it follows where no such device has run Mote yet (those rows
// say "unmeasured" in their names). Devices no row names take the last row,
// which matches every device. The first matching row wins.
#include "runtime/vulkan/device_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

namespace mote::vk {
namespace {

constexpr uint32_t kAnyVendor = 0;
constexpr uint32_t kNvidiaVendor = 0x10de;
constexpr uint32_t kAmdVendor = 0x1002;
constexpr uint32_t kIntelVendor = 0x8086;
constexpr uint32_t kQualcommVendor = 0x5143;
constexpr uint32_t kArmVendor = 0x13b5;
// For integrated and mobile GPUs, which have a few compute units where the
// H200 has 132: fewer, larger tiles than NVIDIA's 512 workgroups, for more
// reuse per tile. 128 is one of the H200 sweep's candidates (ResNet-50
// there 5.3 ms, against 2.9 at 512 and 11.2 at 32 workgroups): a choice to
// measure on such a device, not a figure derived for it.
constexpr uint32_t kSmallGpuWorkgroups = 128;
// The shared core's number of workgroups where no measured row gives one:
// the NVIDIA row's.
constexpr uint32_t kSharedWorkgroups = 512;

// CPU-type devices are drivers that run shaders on the host (lavapipe,
// SwiftShader); GPUs are every other device type, integrated ones (sharing
// the host's memory: APUs, laptops' and phones' GPUs) a subset of them.
enum class Kind { kCpuType, kGpu, kIntegratedGpu, kAny };

struct ProfileRow {
  const char* name;
  uint32_t vendor_id;  // kAnyVendor matches any vendor
  Kind kind;
  GemmTileLimits gemm;
  bool gemm_rows_by_shuffle = false;  // DeviceFeatures::gemm_rows_by_shuffle
  // DeviceFeatures::reduce_rows_per_invocation; on GPUs a workgroup per
  // output reads its contiguous runs in coalesced passes (not measured
  // otherwise).
  uint32_t reduce_rows_per_invocation = 0;
};

constexpr ProfileRow kRows[] = {
    // Drivers that run shaders on the CPU pay a loop over the SIMD lanes for
    // every load instruction, so few loads per FMA win: 32 x 4 results per
    // invocation measured fastest on lavapipe (ResNet-18 1.6x faster than
    // 16 x 2, 2026-11-21), and the rows handed out by subgroup shuffles, one
    // load where there were eight (MobileNetV2 1.4x faster, 2026-12-02).
    // Up to 256 elements reduced in one invocation each (reductions,
    // normalisations, softmax): a workgroup per row folds through shared
    // memory with barriers, which such a driver runs invocation by
    // invocation; GlobalAveragePool over 1280 x 7x7
    // (MobileNetV2) 4.6 -> 0.8 ms, 2048 x 7x7 (ResNet-50) 4.8 -> 1.3 ms,
    // 1000 x 13x13 (SqueezeNet) 5.0 -> 1.5 ms (2026-12-02).
    {"CPU-type device (lavapipe)", kAnyVendor, Kind::kCpuType, {false, 64, 32, 4, 32}, true, 256},
    // NVIDIA H200, driver 580.159 (2026-11-30, tests/bench/gpu): the
    // register core ran MatMuls at 3.8-5.7 TFLOP/s of the 51 cuBLAS reaches
    // (every k step of each invocation waits on its own loads of C) and
    // ResNet-50 in 23.8 ms; the shared-memory core with tiles chosen for
    // 128, 512 and 32 workgroups ran ResNet-50 in 5.3, 2.9 and 11.2 ms
    // (smaller tiles and split-K fill the GPU at 7x7), MobileNetV2 in 0.96,
    // 0.96, 1.09 (90th percentiles of mote-bench).
    {"NVIDIA GPU", kNvidiaVendor, Kind::kGpu, {true, 64, 32, 4, 32, kSharedWorkgroups}},
    // The rows below come from the vendors' public optimisation guides and
    // are not measured yet (no such device has run Mote); `mote-bench
    // --tune` measures the tiles on the device itself.
    // AMD (GCN, RDNA): 64 KiB of on-chip LDS per compute unit or work-group
    // processor, the counterpart of NVIDIA's shared memory (AMD's RDNA
    // performance guide, GPUOpen): the shared core; APUs have few units.
    {"AMD integrated GPU (vendor guide, unmeasured)",
     kAmdVendor,
     Kind::kIntegratedGpu,
     {true, 64, 32, 4, 32, kSmallGpuWorkgroups}},
    {"AMD GPU (vendor guide, unmeasured)", kAmdVendor, Kind::kGpu, {true, 64, 32, 4, 32, kSharedWorkgroups}},
    // Intel (Xe): on-chip shared local memory per Xe-core (Intel's oneAPI
    // GPU optimization guide): the shared core; integrated parts have few cores.
    {"Intel integrated GPU (vendor guide, unmeasured)",
     kIntelVendor,
     Kind::kIntegratedGpu,
     {true, 64, 32, 4, 32, kSmallGpuWorkgroups}},
    {"Intel GPU (vendor guide, unmeasured)", kIntelVendor, Kind::kGpu, {true, 64, 32, 4, 32, kSharedWorkgroups}},
    // Qualcomm Adreno: on-chip local memory for data a workgroup shares
    // (Qualcomm's Snapdragon OpenCL programming and optimization guide,
    // 80-NB295-11); few shader processors.
    {"Qualcomm Adreno (vendor guide, unmeasured)",
     kQualcommVendor,
     Kind::kGpu,
     {true, 64, 32, 4, 32, kSmallGpuWorkgroups}},
    // Arm Mali (Bifrost, Valhall): local memory is main memory behind the
    // same caches, so staging tiles there only adds copies and barriers
    // (Arm's Mali GPU OpenCL developer guide, 101574, section 7.3.2): the
    // register core, with 8 x 4 results per invocation instead of
    // lavapipe's 32 x 4, whose 128 accumulators would spill (a Valhall
    // thread has 64 registers at most).
    {"Arm Mali (vendor guide, unmeasured)", kArmVendor, Kind::kGpu, {false, 64, 8, 4, 16}},
    // Any device no row above describes: lavapipe's tile until measured.
    {"generic", kAnyVendor, Kind::kAny, {false, 64, 32, 4, 32}},
};

bool matches(const ProfileRow& row, const DeviceInfo& info) {
  if (row.vendor_id != kAnyVendor && row.vendor_id != info.vendor_id) return false;
  const bool cpu_type = info.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  switch (row.kind) {
    case Kind::kCpuType:
      return cpu_type;
    case Kind::kGpu:
      return !cpu_type;
    case Kind::kIntegratedGpu:
      return info.type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    case Kind::kAny:
      return true;
  }
  return false;
}

// The shader's constraints (gemm_tile.glsl) and the device's limits.
Status check_tile(const GemmTileLimits& t, const DeviceFeatures& f) {
  if (t.tm < 4 || t.tm > 64 || t.tm % 4 != 0) return invalid_argument("tm must be a multiple of 4 from 4 to 64");
  if (t.tn < 1 || t.tn > 8) return invalid_argument("tn must be 1 to 8");
  if (t.tm * t.tn > 256) return invalid_argument("tm x tn must be at most 256 (registers per invocation)");
  if (t.bk < 1 || t.bk > 256) return invalid_argument("bk must be 1 to 256");
  const uint32_t most_lx = std::min(f.max_workgroup_invocations, f.max_workgroup_size[0]);
  if (t.lx < 8 || t.lx > most_lx) {
    return invalid_argument("lx must be at least 8 and within the device's workgroup size (" +
                            std::to_string(most_lx) + ")");
  }
  if (t.bk * t.tm * 4 > f.max_shared_memory) {
    return invalid_argument("bk x tm x 4 bytes exceeds the device's " + std::to_string(f.max_shared_memory) +
                            " bytes of shared memory");
  }
  return {};
}

// A decimal number of 1 to 9 digits and nothing else (no sign, no blanks).
std::optional<uint32_t> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  uint32_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  return v;
}

}  // namespace

Result<GemmTileLimits> parse_gemm_tile(const std::string& value, const GemmTileLimits& row,
                                       const DeviceFeatures& features) {
  const std::string what = "GEMM tile '" + value + "': ";
  GemmTileLimits t;
  if (value == "shared" || value.rfind("shared:", 0) == 0) {
    t.shared_core = true;
    t.min_workgroups = row.shared_core ? row.min_workgroups : kSharedWorkgroups;
    if (value != "shared") {
      std::optional<uint32_t> n = parse_count(value.substr(7));
      if (!n || *n == 0) return invalid_argument(what + "expected shared:N with N workgroups, 0 < N < 10^9");
      t.min_workgroups = *n;
    }
    return t;
  }
  std::vector<uint32_t> fields;
  for (size_t start = 0; start <= value.size();) {
    size_t x = value.find('x', start);
    if (x == std::string::npos) x = value.size();
    std::optional<uint32_t> n = parse_count(value.substr(start, x - start));
    if (!n) break;
    fields.push_back(*n);
    start = x + 1;
  }
  if (fields.size() != 4 || std::count(value.begin(), value.end(), 'x') != 3) {
    return invalid_argument(what + "expected LXxTMxTNxBK (the register core, e.g. 128x16x4x16), shared or shared:N");
  }
  t.lx = fields[0], t.tm = fields[1], t.tn = fields[2], t.bk = fields[3];
  if (Status s = check_tile(t, features); !s.ok()) return invalid_argument(what + s.message());
  return t;
}

std::string format_gemm_tile(const GemmTileLimits& t) {
  if (t.shared_core) return "shared:" + std::to_string(t.min_workgroups);
  return std::to_string(t.lx) + "x" + std::to_string(t.tm) + "x" + std::to_string(t.tn) + "x" + std::to_string(t.bk);
}

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
    profile.gemm_rows_by_shuffle = row.gemm_rows_by_shuffle;
    profile.reduce_rows_per_invocation = row.reduce_rows_per_invocation;
    break;
  }
  if (gemm_override && *gemm_override) {
    auto tile = parse_gemm_tile(gemm_override, profile.gemm, features);
    if (!tile.ok())
      return invalid_argument("MOTE_VK_GEMM_TILE=" + std::string(gemm_override) + ": " + tile.status().message());
    profile.gemm = tile.value();
    profile.row += std::string(", GEMM tile from MOTE_VK_GEMM_TILE=") + gemm_override;
    profile.gemm_from_environment = true;
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
