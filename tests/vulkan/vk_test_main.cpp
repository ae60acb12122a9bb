// main() of mote_vulkan_tests: after every test, fails it if the Vulkan
// validation layer (enabled by MOTE_VK_VALIDATION=1 in CTest) reported an
// error while it ran.
#include <gtest/gtest.h>

#include <cstdio>

#include "runtime/vulkan/device.hpp"

namespace {

class ValidationListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo&) override { before_ = errors(); }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    uint64_t now = errors();
    if (now != before_) {
      ADD_FAILURE() << info.name() << ": " << (now - before_) << " Vulkan validation error(s), printed above";
      failed_ = true;
    }
  }
  // Also fails the process: a failure added after the test's own end is
  // reported late by some gtest versions, the exit status never is.
  static bool failed() { return failed_; }

 private:
  static uint64_t errors() {
    auto device = mote::vk::Device::get();
    return device.ok() ? device.value()->validation_errors() : 0;
  }
  uint64_t before_ = 0;
  static inline bool failed_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // No Vulkan device skips the tests; a setting that names no device or is
  // malformed (MOTE_VK_DEVICE, MOTE_VK_GEMM_TILE) fails them, or a CTest
  // variant that sets one wrongly would pass having tested nothing.
  if (auto device = mote::vk::Device::get();
      !device.ok() && (device.status().code() == mote::StatusCode::kInvalidArgument ||
                       device.status().code() == mote::StatusCode::kNotFound)) {
    std::fprintf(stderr, "mote_vulkan_tests: %s\n", device.status().message().c_str());
    return 1;
  }
  ::testing::UnitTest::GetInstance()->listeners().Append(new ValidationListener);
  int result = RUN_ALL_TESTS();
  return ValidationListener::failed() ? 1 : result;
}
