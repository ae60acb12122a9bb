// The quirk table's matching (pure logic, no device needed): rows apply to
// the devices and drivers they name and to no others.
#include "runtime/vulkan/quirks.hpp"

#include <gtest/gtest.h>

namespace mote::vk {
namespace {

DeviceFeatures everything() {
  DeviceFeatures f;
  f.subgroup_arithmetic = f.int8_dot_product = f.cooperative_matrix = true;
  f.fp16_storage = f.shader_float16 = true;
  return f;
}

DeviceInfo device(uint32_t vendor, const char* name, const char* driver, uint32_t driver_id = 0) {
  DeviceInfo info;
  info.vendor_id = vendor;
  info.name = name;
  info.driver = driver;
  info.driver_id = driver_id;
  return info;
}

// Applies the table to `info` and checks the rows applied and what is left.
void expect_after_quirks(const DeviceInfo& info, size_t rows, bool subgroups, bool dot, bool cooperative) {
  DeviceFeatures f = everything();
  EXPECT_EQ(apply_quirks(info, f).size(), rows) << info.name;
  EXPECT_EQ(f.subgroup_arithmetic, subgroups) << info.name;
  EXPECT_EQ(f.int8_dot_product, dot) << info.name;
  EXPECT_EQ(f.cooperative_matrix, cooperative) << info.name;
}

TEST(Quirks, PowerVrProprietaryDriverLosesSubgroupReductions) {
  expect_after_quirks(
      device(0x1010, "PowerVR C-Series CXTP-48-1536 MC1", "PowerVR 1.662.3024", VK_DRIVER_ID_IMAGINATION_PROPRIETARY),
      1, false, true, true);
  // A Vulkan 1.1 driver reports no driver id: matched unless it is Mesa's.
  expect_after_quirks(device(0x1010, "PowerVR Rogue GE8320", "PowerVR 1.386"), 1, false, true, true);
}

TEST(Quirks, PowerVrDxtAlsoLosesDotProductAndCooperativeMatrix) {
  expect_after_quirks(
      device(0x1010, "PowerVR D-Series DXT-48-1536 MC1", "PowerVR 1.602", VK_DRIVER_ID_IMAGINATION_PROPRIETARY), 2,
      false, false, false);
}

TEST(Quirks, MesaDriversOfTheSameVendorAreNotMatched) {
  // By driver id, and by driver info where a Vulkan 1.1 driver reports none.
  expect_after_quirks(device(0x1010, "PowerVR D-Series DXT-48-1536 MC1", "Imagination open-source Mesa driver 25.1",
                             VK_DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA),
                      0, true, true, true);
  expect_after_quirks(device(0x1010, "PowerVR D-Series DXT-48-1536 MC1", "imagination Mesa 24.0"), 0, true, true,
                      true);
}

// Submissions split on Qualcomm's driver for Adreno below 702 only.
uint32_t dispatches_per_submit(const DeviceInfo& info) {
  DeviceFeatures f = everything();
  apply_quirks(info, f);
  return f.max_dispatches_per_submit;
}

TEST(Quirks, EarlyAdrenoSplitsItsSubmissions) {
  for (const char* name : {"Adreno (TM) 630", "Adreno (TM) 618", "Adreno (TM) 540", "Adreno (TM) 650"}) {
    EXPECT_GT(dispatches_per_submit(device(0x5143, name, "Qualcomm 512.502", VK_DRIVER_ID_QUALCOMM_PROPRIETARY)), 0u)
        << name;
  }
  for (const char* name : {"Adreno (TM) 702", "Adreno (TM) 740", "Adreno (TM) 830", "Qualcomm GPU",
                           "Qualcomm(R) Adreno(TM) X1-85 GPU", "Adreno (TM) 6"}) {
    EXPECT_EQ(dispatches_per_submit(device(0x5143, name, "Qualcomm 762.10", VK_DRIVER_ID_QUALCOMM_PROPRIETARY)), 0u)
        << name;
  }
  // Mesa's Turnip reports Qualcomm's vendor id without the bug.
  EXPECT_EQ(dispatches_per_submit(
                device(0x5143, "Turnip Adreno (TM) 630", "turnip Mesa driver 24.0", VK_DRIVER_ID_MESA_TURNIP)),
            0u);
}

TEST(Quirks, OtherDevicesKeepTheirFeatures) {
  DeviceFeatures f = everything();
  EXPECT_TRUE(apply_quirks(device(0x10de, "NVIDIA H200", "NVIDIA 580.159.04"), f).empty());
  EXPECT_TRUE(f.subgroup_arithmetic && f.int8_dot_product && f.cooperative_matrix && f.fp16_storage);
  // lavapipe: the loop limit, whatever the host.
  auto applied = apply_quirks(device(0x10005, "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe Mesa 22.3.6"), f);
  EXPECT_FALSE(applied.empty());
  EXPECT_EQ(f.max_loop_iterations, 65535u);
}

}  // namespace
}  // namespace mote::vk
