#include "runtime/vulkan/faults.hpp"

#include <atomic>
#include <cstdlib>
#include <sstream>
#include <string>

namespace mote::vk {
namespace {

// Per kind: calls left until the fault fires (0: disarmed).
std::atomic<int> g_countdown[3];
std::atomic<bool> g_device_lost{false};

std::atomic<int>& countdown(Fault fault) { return g_countdown[static_cast<int>(fault)]; }

}  // namespace

void arm_fault(Fault fault, int nth) { countdown(fault).store(nth < 1 ? 1 : nth); }

Status arm_faults_from_environment() {
  const char* env = std::getenv("MOTE_VK_FAULT");
  if (!env || !*env) return {};
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) {
    std::string kind = item.substr(0, item.find(':'));
    int nth = 1;
    if (kind.size() < item.size()) {
      char* end = nullptr;
      long n = std::strtol(item.c_str() + kind.size() + 1, &end, 10);
      if (*end != '\0' || n < 1 || n > 1000000000) {
        return invalid_argument("MOTE_VK_FAULT: '" + item + "': the count after ':' must be a positive integer");
      }
      nth = static_cast<int>(n);
    }
    if (kind == "device_lost") {
      arm_fault(Fault::kDeviceLost, nth);
    } else if (kind == "out_of_memory") {
      arm_fault(Fault::kOutOfDeviceMemory, nth);
    } else if (kind == "pipeline") {
      arm_fault(Fault::kPipeline, nth);
    } else {
      return invalid_argument("MOTE_VK_FAULT: unknown fault '" + kind +
                              "' (expected device_lost, out_of_memory or pipeline, each with an optional :N)");
    }
  }
  return {};
}

bool fault_fires(Fault fault) {
  std::atomic<int>& left = countdown(fault);
  int n = left.load();
  // Count down without going below zero; the call that takes it from 1 to 0 fails.
  while (n > 0 && !left.compare_exchange_weak(n, n - 1)) {
  }
  return n == 1;
}

bool device_lost() { return g_device_lost.load(); }
void mark_device_lost() { g_device_lost.store(true); }

void reset_injected_faults() {
  for (auto& c : g_countdown) c.store(0);
  g_device_lost.store(false);
}

}  // namespace mote::vk
