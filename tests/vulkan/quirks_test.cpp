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

DeviceInfo device(uint32_t vendor, const char* name, const char* driver) {
  DeviceInfo info;
  info.vendor_id = vendor;
  info.name = name;
  info.driver = driver;
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
  expect_after_quirks(device(0x1010, "PowerVR C-Series CXTP-48-1536 MC1", "PowerVR 1.662.3024"), 1, false, true, true);
}

TEST(Quirks, PowerVrDxtAlsoLosesDotProductAndCooperativeMatrix) {
  expect_after_quirks(device(0x1010, "PowerVR D-Series DXT-48-1536 MC1", "PowerVR 1.602"), 2, false, false, false);
}

TEST(Quirks, MesaDriversOfTheSameVendorAreNotMatched) {
  DeviceFeatures f = everything();
  EXPECT_TRUE(
      apply_quirks(
          device(0x1010, "PowerVR D-Series DXT-48-1536 MC1", "Imagination open-source Mesa driver Mesa 25.1"), f)
          .empty());
  EXPECT_TRUE(f.subgroup_arithmetic && f.int8_dot_product && f.cooperative_matrix);
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
