// CPU kernels of the gradient ops: the reference code for now (see
// runtime/reference/gradients.hpp for why); registered here so the CPU
// backend lists them as its own and an optimised version has its place.
#include "runtime/reference/gradients.hpp"

MOTE_CPU_KERNEL(ConvGradWeight, mote::reference::conv_grad_weight);
MOTE_CPU_KERNEL(MaxPoolGrad, mote::reference::max_pool_grad);
MOTE_CPU_KERNEL(AveragePoolGrad, mote::reference::average_pool_grad);
