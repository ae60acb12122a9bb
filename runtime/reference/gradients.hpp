// Reference kernels of the gradient ops (runtime/ops/gradients.cpp). The CPU
// backend registers the same functions for now (runtime/cpu/gradients.cpp):
// training graphs of the sizes trained on devices so far spend their time in
// Conv/Gemm, not here.
#pragma once

#include "runtime/core/kernel.hpp"

namespace mote::reference {

Status conv_grad_weight(KernelContext& ctx);
Status max_pool_grad(KernelContext& ctx);
Status average_pool_grad(KernelContext& ctx);

}  // namespace mote::reference
