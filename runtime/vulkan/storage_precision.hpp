// Mixed storage precision in one GPU program. A session with f16 storage may
// keep some ops in f32 (SessionOptions::gpu_f32_ops, which
// choose_gpu_precision in mote/gpu.hpp fills by measurement). A step runs one
// variant of its shaders, so every F32 tensor it binds must be stored in its
// precision: where a step reads a tensor made in the other one, a conversion
// step (cast.comp, f32 <-> packed f16) writes a twin of it in the reader's
// precision, once, just before the first such reader; later readers of that
// precision share the twin. A weight read in both precisions is uploaded
// twice instead (converted on the host); a graph input or a CPU step's output
// is uploaded f32 when some GPU step reads it in f32, else f16.
#pragma once

#include <vector>

#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/program.hpp"

namespace mote::vk {

struct StoragePrecisionPlan {
  int f16_steps = 0;
  int f32_steps = 0;
  int conversions = 0;   // conversion steps inserted
  int weight_twins = 0;  // weights uploaded in both precisions
};

// Sets ProgramTensor::f16 of every F32 tensor a step reads or writes from the
// steps' ProgramStep::fp16, appends twins to `tensors` and inserts their
// conversion steps into `steps` (in execution order, in and out). Needs
// features.half_conversions when the steps' precisions differ.
StoragePrecisionPlan assign_storage_precision(std::vector<ProgramTensor>& tensors, std::vector<ProgramStep>& steps,
                                              const DeviceFeatures& features);

// The dispatch converting `numel` F32 values between f32 (binding 0 or 1) and
// packed f16 words; run with the f32 variant of cast.comp (ProgramStep::fp16 false).
Dispatch precision_conversion(bool to_f16, int64_t numel, const DeviceFeatures& features);

}  // namespace mote::vk
