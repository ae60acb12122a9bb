// The device quirk table. A row names the devices it matches (vendor id,
// a device-name substring, a driver-version bound), the bug seen, and the
// workaround as a change to the probed features, so kernels never test for
// vendors themselves. Add a row with the conformance or op-test failure that
// motivates it.
#include "runtime/vulkan/quirks.hpp"

namespace mote::vk {
namespace {

struct Quirk {
  uint32_t vendor_id;           // 0 matches any vendor
  const char* name_contains;    // "" matches any device
  uint32_t below_driver;        // matches drivers older than this; 0 = any
  const char* bug;              // what goes wrong
  const char* workaround;       // what the row changes
  void (*apply)(DeviceFeatures& features);
};

constexpr uint32_t kMesaVendor = 0x10005;  // VK_VENDOR_ID_MESA

constexpr Quirk kQuirks[] = {
    // Found by TopK (k=100 over 1000) and CumSum (66000 elements) going wrong
    // from iteration 65535 on: gallivm caps every loop at 65535 iterations,
    // counted across re-entries, and silently skips the rest.
    {kMesaVendor, "llvmpipe", 0, "shader loops stop after 65535 iterations",
     "max_loop_iterations = 65535 (longer per-invocation work runs on the CPU)",
     [](DeviceFeatures& f) { f.max_loop_iterations = 65535; }},
};

}  // namespace

std::vector<std::string> apply_quirks(const DeviceInfo& info, DeviceFeatures& features) {
  std::vector<std::string> applied;
  for (const Quirk& q : kQuirks) {
    if (!q.apply) continue;
    if (q.vendor_id && q.vendor_id != info.vendor_id) continue;
    if (q.name_contains && *q.name_contains && info.name.find(q.name_contains) == std::string::npos) continue;
    if (q.below_driver && info.driver_version >= q.below_driver) continue;
    q.apply(features);
    applied.push_back(info.name + ": " + q.bug + " -> " + q.workaround);
  }
  return applied;
}

}  // namespace mote::vk
