// The weight side of the Winograd convolutions F(4x4, 3x3) and F(2x2, 3x3)
// (Lavin and Gray, 2016), shared by the CPU (runtime/cpu/conv_winograd) and
// Vulkan (runtime/vulkan/kernels/conv_winograd) kernels so both transform
// filters identically: each 3x3 filter g becomes G g G^T, (tile + 2)^2 points.
#pragma once

#include <cstdint>
#include <vector>

namespace mote {

// u[p * filters + f] = (G g_f G^T)[p] for `filters` 3x3 filters g_f, 9
// floats apart in w; the points p run row-major over the (tile + 2)^2
// transform domain. `tile` (outputs per tile side) is 4 or 2.
void winograd_transform_weights(int tile, const float* w, int64_t filters, float* u);

// The same into a new vector of (tile + 2)^2 * filters floats.
std::vector<float> winograd_transform_weights(int tile, const float* w, int64_t filters);

}  // namespace mote
