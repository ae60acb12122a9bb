// Lookup of op definitions and kernels by op type. The implementation,
// registry_generated.cpp, is generated at build time by
// cmake/generate_registry.py from the MOTE_OP_DEF / MOTE_CPU_KERNEL /
// MOTE_REF_KERNEL / MOTE_VK_KERNEL / MOTE_GRAD lines in the sources: no static initialisers and no hand
// lists, so a static build cannot silently lose a kernel.
#pragma once

#include <span>

#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

namespace vk {
struct VulkanKernel;  // runtime/vulkan/vk_kernel.hpp
}
struct GradBuilder;  // runtime/train/grad_builder.hpp

// nullptr when the op type is unknown or has no entry.
const OpDef* find_op_def(fb::OpType type);
const CpuKernel* find_cpu_kernel(fb::OpType type);
const CpuKernel* find_reference_kernel(fb::OpType type);
// Always nullptr when Mote is built without Vulkan.
const vk::VulkanKernel* find_vulkan_kernel(fb::OpType type);
// The gradient builder of an op type (training), or nullptr when it has none.
const GradBuilder* find_grad_builder(fb::OpType type);

// Every op type of the schema except Invalid, in enum order.
std::span<const fb::OpType> all_op_types();
const char* op_type_name(fb::OpType type);

}  // namespace mote
