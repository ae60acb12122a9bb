// Reference kernels of the gradient ops (runtime/ops/gradients.cpp): direct
// sums in double, the definition the CPU kernels (cpu/conv_grad_weight.cpp,
// cpu/pool_grad.cpp) and the Vulkan shaders are tested against.
#pragma once

#include "runtime/core/kernel.hpp"

namespace mote::reference {

Status conv_grad_weight(KernelContext& ctx);
Status max_pool_grad(KernelContext& ctx);
Status average_pool_grad(KernelContext& ctx);

}  // namespace mote::reference
