// The device quirk table. A row names the devices it matches (vendor id,
// a device-name substring, a driver-version bound), the bug seen, and the
// workaround as a change to the probed features, so kernels never test for
// vendors themselves. Add a row with the conformance or op-test failure that
// motivates it.
#include "runtime/vulkan/quirks.hpp"

#include <string>

namespace mote::vk {
namespace {

// The machine this build runs on, for drivers that compile shaders to host
// code (llvmpipe), whose bugs follow the host's instruction set.
#if defined(__aarch64__)
constexpr const char* kHostArch = "aarch64";
#elif defined(__x86_64__)
constexpr const char* kHostArch = "x86_64";
#else
constexpr const char* kHostArch = "other";
#endif

struct Quirk {
  uint32_t vendor_id;           // 0 matches any vendor
  const char* name_contains;    // "" matches any device
  uint32_t below_driver;        // matches drivers older than this; 0 = any
  const char* host_arch;        // "" matches any host
  // Only this driver (a VkDriverId; 0 = any): Mesa's drivers report the
  // vendors' ids (Turnip 0x5143, PanVK 0x13b5, Imagination's Mesa driver
  // 0x1010) without the vendors' bugs. A device that reports no driver id
  // (Vulkan 1.1) matches unless its driver info names Mesa.
  uint32_t driver_id;
  const char* bug;              // what goes wrong, and the public source
  const char* workaround;       // what the row changes
  void (*apply)(DeviceFeatures& features);
  // A further test of the device where a name substring cannot say it
  // (a range of model numbers); null = none.
  bool (*device_matches)(const DeviceInfo& info) = nullptr;
};

constexpr uint32_t kMesaVendor = 0x10005;  // VK_VENDOR_ID_MESA
constexpr uint32_t kImaginationVendor = 0x1010;
constexpr uint32_t kQualcommVendor = 0x5143;

// Adreno's model number from a device name such as "Adreno (TM) 630": the
// three digits right after "Adreno (TM) ", or 0 for any other name (a
// Snapdragon X laptop's "Adreno(TM) X1-85" is a new part; Impeller also
// takes names it does not know for new ones).
int adreno_model(const std::string& name) {
  const std::string prefix = "Adreno (TM) ";
  size_t at = name.find(prefix);
  if (at == std::string::npos) return 0;
  at += prefix.size();
  int n = 0, digits = 0;
  for (; at < name.size() && name[at] >= '0' && name[at] <= '9'; ++at, ++digits) n = n * 10 + (name[at] - '0');
  return digits == 3 ? n : 0;
}

// Dispatches per submission on the drivers below: the source gives no size,
// so this is our choice, small enough that a submission is a fraction of a
// CNN (ResNet-50 records 83 dispatches on lavapipe) and large enough that the
// wait between submissions (one per 32 dispatches) stays a small cost.
constexpr uint32_t kAdrenoDispatchesPerSubmit = 32;

bool driver_matches(const Quirk& q, const DeviceInfo& info) {
  if (q.driver_id == 0) return true;
  if (info.driver_id != 0) return info.driver_id == q.driver_id;
  return info.driver.find("Mesa") == std::string::npos;
}

constexpr Quirk kQuirks[] = {
    // Found by TopK (k=100 over 1000) and CumSum (66000 elements) going wrong
    // from iteration 65535 on: gallivm caps every loop at 65535 iterations,
    // counted across re-entries, and silently skips the rest.
    {kMesaVendor, "llvmpipe", 0, "", 0, "shader loops stop after 65535 iterations",
     "max_loop_iterations = 65535 (longer per-invocation work runs on the CPU)",
     [](DeviceFeatures& f) { f.max_loop_iterations = 65535; }},
    // Found by the arm64 suite under qemu (Mesa 22.3.6, LLVM 15): shaders
    // reading f16 storage abort the process inside LLVM's AArch64
    // instruction selection ("Cannot select: v4f32 = fp_extend v4i16"), and
    // unpackHalf2x16 gives wrong values, then aborts the same way.
    {kMesaVendor, "llvmpipe", 0, "aarch64", 0, "f16 loads and conversions abort LLVM's AArch64 code generator",
     "no 16-bit storage, f16 math or f16 casts on the GPU (those run on the CPU; f16 storage requests use f32)",
     [](DeviceFeatures& f) { f.fp16_storage = f.shader_float16 = f.half_conversions = false; }},
    // Reported publicly, not seen here (no such device). PowerVR's driver
    // failed to create compute pipelines whose reductions use subgroup
    // operations alone (VK_ERROR_UNKNOWN on a C-Series CXTP-48-1536, driver
    // 1.662.3024: llama.cpp pull request 28341, which moved it to shared-
    // memory reductions), and Dawn keeps subgroups off on PowerVR parts that
    // report a subgroup size of 1 (GE8320).
    {kImaginationVendor, "", 0, "", VK_DRIVER_ID_IMAGINATION_PROPRIETARY,
     "subgroup reductions fail to compile (llama.cpp PR 28341; Dawn)",
     "no subgroup arithmetic (reductions, softmax and norms use shared memory)",
     [](DeviceFeatures& f) { f.subgroup_arithmetic = false; }},
    // Reported publicly by a user, not seen here: a Pixel 10's PowerVR
    // DXT-48-1536 gave wrong results until both cooperative matrices and the
    // integer dot product were switched off (llama.cpp issue 28502).
    {kImaginationVendor, "DXT-48-1536", 0, "", VK_DRIVER_ID_IMAGINATION_PROPRIETARY,
     "wrong results with integer dot products and cooperative matrices (llama.cpp issue 28502)",
     "no integer dot product (QLinearConv and QLinearMatMul use their portable shaders), no cooperative matrix",
     [](DeviceFeatures& f) { f.int8_dot_product = f.cooperative_matrix = false; }},
    // Reported publicly, not seen here: Qualcomm's drivers for Adreno 600-
    // series GPUs and older deadlock when one command-buffer submission
    // carries too much work. Flutter's Impeller splits its submissions on
    // every Adreno below the 702 (impeller/renderer/backend/vulkan/
    // workarounds_vk.cc, batch_submit_command_buffer_timeout).
    {kQualcommVendor, "Adreno", 0, "", VK_DRIVER_ID_QUALCOMM_PROPRIETARY,
     "one large submission can deadlock the driver (Flutter Impeller's workarounds, Adreno below 702)",
     "at most 32 dispatches per submission, cut between ops (a model runs as several command buffers)",
     [](DeviceFeatures& f) { f.max_dispatches_per_submit = kAdrenoDispatchesPerSubmit; },
     [](const DeviceInfo& info) {
       int model = adreno_model(info.name);
       return model > 0 && model < 702;
     }},
};

}  // namespace

std::vector<std::string> apply_quirks(const DeviceInfo& info, DeviceFeatures& features) {
  std::vector<std::string> applied;
  for (const Quirk& q : kQuirks) {
    if (!q.apply) continue;
    if (q.vendor_id && q.vendor_id != info.vendor_id) continue;
    if (q.name_contains && *q.name_contains && info.name.find(q.name_contains) == std::string::npos) continue;
    if (q.below_driver && info.driver_version >= q.below_driver) continue;
    if (q.host_arch && *q.host_arch && std::string(q.host_arch) != kHostArch) continue;
    if (!driver_matches(q, info)) continue;
    if (q.device_matches && !q.device_matches(info)) continue;
    q.apply(features);
    applied.push_back(info.name + ": " + q.bug + " -> " + q.workaround);
  }
  return applied;
}

}  // namespace mote::vk
