// GPU faults: the state a real one leaves behind, and a switch that injects
// them so the recovery paths are tested (docs/reliability.md, "GPU faults").
//
// Injection: MOTE_VK_FAULT=<kind>[:<n>][,<kind>[:<n>]...] in the environment
// (read when the device is created) or arm_fault() from a test. The n-th
// call of that kind from then on (default: the next) fails once, as a faulty
// driver would fail it:
//   device_lost    a queue submit returns VK_ERROR_DEVICE_LOST
//   out_of_memory  a device allocation returns VK_ERROR_OUT_OF_DEVICE_MEMORY
//   pipeline       a compute pipeline fails to build (VK_ERROR_INITIALIZATION_FAILED)
#pragma once

#include "mote/status.hpp"

namespace mote::vk {

enum class Fault { kDeviceLost, kOutOfDeviceMemory, kPipeline };

// Makes the `nth` next call of kind `fault` fail, once.
void arm_fault(Fault fault, int nth = 1);
// Reads MOTE_VK_FAULT; an error names what it could not parse.
Status arm_faults_from_environment();
// At an injection point: whether this call is the one that fails.
bool fault_fires(Fault fault);

// Whether the device reported VK_ERROR_DEVICE_LOST (a real or injected loss).
// A lost device is never used again: new plans go to the CPU.
bool device_lost();
void mark_device_lost();
// For tests only: forget an injected loss (a real one cannot be undone), so
// later tests in the same process use the GPU again; also disarms faults.
void reset_injected_faults();

}  // namespace mote::vk
