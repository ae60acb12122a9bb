// Vulkan through volk: every entry point is loaded at run time, so a binary
// built with the Vulkan backend still starts (and runs on the CPU) on a
// machine with no Vulkan loader at all.
#pragma once

#include <string>

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.h>

#include "mote/status.hpp"

namespace mote::vk {

const char* result_name(VkResult result);

// An error "what: VK_ERROR_..." for a failed Vulkan call.
Status vk_error(const std::string& what, VkResult result);

}  // namespace mote::vk

#define MOTE_VK_CHECK(call, what)                                   \
  do {                                                              \
    VkResult mote_vk_result_ = (call);                              \
    if (mote_vk_result_ != VK_SUCCESS) return ::mote::vk::vk_error(what, mote_vk_result_); \
  } while (0)
