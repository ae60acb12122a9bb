// Device selection (pure logic, no device needed): discrete before
// integrated before CPU-type devices, MOTE_VK_DEVICE by index or name, and
// errors that list what exists.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runtime/vulkan/device.hpp"

namespace mote::vk {
namespace {

DeviceCandidate candidate(const char* name, VkPhysicalDeviceType type, bool compute = true) {
  return {name, type, compute, VK_API_VERSION_1_2};
}

TEST(DeviceSelect, PrefersDiscreteThenIntegratedThenCpu) {
  std::vector<DeviceCandidate> c = {candidate("llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU),
                                    candidate("Intel UHD", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU),
                                    candidate("NVIDIA H100", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
  EXPECT_EQ(select_device(c, nullptr).value(), 2u);
  c.pop_back();
  EXPECT_EQ(select_device(c, "").value(), 1u);
  c.pop_back();
  EXPECT_EQ(select_device(c, nullptr).value(), 0u);
}

TEST(DeviceSelect, SkipsDevicesWithoutComputeOrVulkan11) {
  std::vector<DeviceCandidate> c = {candidate("no compute", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, false),
                                    candidate("llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU)};
  c.push_back({"old", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, true, VK_API_VERSION_1_0});
  EXPECT_EQ(select_device(c, nullptr).value(), 1u);
}

TEST(DeviceSelect, EnvironmentPicksByIndexOrName) {
  std::vector<DeviceCandidate> c = {candidate("NVIDIA H100", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
                                    candidate("llvmpipe (LLVM 15)", VK_PHYSICAL_DEVICE_TYPE_CPU)};
  EXPECT_EQ(select_device(c, "1").value(), 1u);
  EXPECT_EQ(select_device(c, "LLVMPIPE").value(), 1u);
  EXPECT_EQ(select_device(c, "h100").value(), 0u);
  auto missing = select_device(c, "adreno");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("llvmpipe"), std::string::npos) << missing.status().message();
  EXPECT_FALSE(select_device(c, "7").ok());
}

TEST(DeviceSelect, NothingUsableSaysWhy) {
  auto none = select_device({}, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("Vulkan unavailable"), std::string::npos);
}

}  // namespace
}  // namespace mote::vk

namespace mote::vk {
namespace {

// The op tests run with MOTE_VK_VALIDATION=1 and count on the layer to catch
// API misuse; zero errors only means something if it is really loaded.
TEST(DeviceValidation, LayerIsOnWhenAsked) {
  auto device = Device::get();
  if (!device.ok()) GTEST_SKIP() << device.status().message();
  const char* asked = std::getenv("MOTE_VK_VALIDATION");
  if (!asked || std::string(asked) == "0") GTEST_SKIP() << "MOTE_VK_VALIDATION not set";
  EXPECT_TRUE(device.value()->validation_enabled()) << "is vulkan-validationlayers installed?";
}

}  // namespace
}  // namespace mote::vk
