// Helpers for Vulkan tests: run one op as a one-op model on the Vulkan
// backend and compare it with the reference kernel, for f32 and f16 storage.
//
// Vulkan tests skip when no Vulkan device exists, except when
// MOTE_REQUIRE_VULKAN=1 (set by platforms/linux/test.sh, where lavapipe is
// installed): then a missing device fails them.
#pragma once

#include <gtest/gtest.h>

#include "mote/mote.hpp"
#include "tests/support/op_test_util.hpp"

namespace mote::test {

// Empty when a Vulkan device is usable, else why not.
std::string vulkan_unavailable_reason();

#define MOTE_REQUIRE_VULKAN()                                                         \
  do {                                                                                \
    std::string why_ = ::mote::test::vulkan_unavailable_reason();                     \
    if (!why_.empty()) {                                                              \
      if (std::getenv("MOTE_REQUIRE_VULKAN")) FAIL() << "Vulkan required: " << why_;  \
      GTEST_SKIP() << why_;                                                           \
    }                                                                                 \
  } while (0)

bool device_has_fp16_storage();
// f16 arithmetic (shaderFloat16; MOTE_VK_DISABLE=f16math switches it off).
bool device_has_shader_float16();
// Whether the int8 ops run on this device's GPU (not on CPU-type devices
// such as lavapipe unless MOTE_VK_FORCE_INT8=1: DeviceFeatures).
bool device_runs_int8_shaders();
#define MOTE_REQUIRE_INT8_SHADERS() \
  MOTE_REQUIRE_VULKAN();            \
  if (!device_runs_int8_shaders()) GTEST_SKIP() << "the int8 ops stay on the CPU on this device"
// Whether Cast to and from f16 runs on this device (false under a driver
// quirk, runtime/vulkan/quirks.cpp: those casts then run on the CPU).
bool device_has_half_conversions();

// Which op inputs become model constants (bit i = input i); the others are
// graph inputs uploaded per run. kValueInputs: the op definition's
// value_inputs (Reshape's shape, Slice's starts...).
constexpr uint32_t kValueInputs = 0xffffffffu;

// `op` as a one-op model: inputs in constant_mask become constants, the
// others graph inputs, fed by `feeds` in order.
struct OneOpModel {
  std::shared_ptr<const Tensor> bytes;  // the serialized model, used in place
  std::shared_ptr<const Model> model;
  std::vector<Tensor> feeds;
};
Result<OneOpModel> one_op_model(const fb::OpT& op, const Inputs& inputs, uint32_t constant_mask = kValueInputs);

struct VulkanRun {
  std::vector<Tensor> outputs;
  std::vector<OpPlacement> placement;
  PlanStats stats;
};

// Builds a one-op model around `op` and runs it with the given options
// (backend forced to Vulkan, islands of any size on the GPU).
Result<VulkanRun> run_op_vulkan(const fb::OpT& op, const Inputs& inputs, GpuPrecision precision,
                                uint32_t constant_mask = kValueInputs, SessionOptions options = {});

struct Tolerance {
  double rtol = 1e-4, atol = 1e-5;          // f32 storage
  double rtol16 = 5e-3, atol16 = 5e-3;      // f16 storage
};

// Runs on Vulkan with f32 and (where supported) f16 storage and expects the
// op on the GPU and its outputs within tolerance of the reference kernel. For
// f16, the reference sees the inputs rounded to f16 as the GPU does.
void expect_vulkan_matches_reference(const fb::OpT& op, const Inputs& inputs, Tolerance tol = {},
                                     uint32_t constant_mask = kValueInputs);

// F32 tensors rounded through f16 (others unchanged).
Tensor round_to_f16(const Tensor& t);

}  // namespace mote::test
