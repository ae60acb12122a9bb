// Depthwise 2-D convolution (group == C_in == C_out), two ways: one channel
// plane at a time vectorised over the output width (depthwise_plane), or a
// block of channels at a time vectorised across them, for narrow planes
// (depthwise_channel_block). A 1-D convolution is a plane of height 1.
// Strides along the width of 1 and 2 are supported (loads of consecutive or
// every other input); the other dimensions take any kernel size, stride,
// dilation and padding.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/cpu/plane_conv_shape.hpp"

namespace mote::cpu {

// The padded input of a depthwise task (and for channel blocks, its
// transposed output), kept per thread between runs (conv.cpp).
struct DepthwiseScratch {
  std::vector<float> buffer;
  // The padded-plane geometry whose zero margins and padding rows `buffer`
  // holds, left by the row path's last call (which writes data only inside
  // them, and zeros past a row's end); all zero when nothing is known. The
  // next call on the same geometry, on the same thread, skips zeroing them.
  std::array<int64_t, 8> zeroed_for{};
};

// This thread's scratch; call it inside the pool's task, never before it
// (conv.cpp says why).
DepthwiseScratch& depthwise_scratch();

// y[out_h, out_w] = bias + x[in_h, in_w] (*) w[kernel_h, kernel_w], clamped.
// `scratch` holds the zero-padded input plane; it is resized as needed and can
// be reused across calls on one thread.
void depthwise_plane(const PlaneConvShape& s, const float* x, const float* w, float bias, float* y,
                     DepthwiseScratch& scratch);

// The same for an 8-bit plane (int8 if is_signed, else uint8) less `zero`,
// without bias: the int8 depthwise kernel's exact integer sums (qdepthwise.hpp),
// the plane converted as it is padded. stride_w must be 1 or 2
// (plane_conv_supports_stride).
void depthwise_plane_8bit(const PlaneConvShape& s, const void* x, bool is_signed, int32_t zero, const float* w,
                          float* y, DepthwiseScratch& scratch);

// Whether depthwise_channel_block is the faster path for this shape.
bool prefers_channel_blocks(const PlaneConvShape& s);

// Channels per call of depthwise_channel_block: the SIMD width in floats.
int64_t depthwise_block_channels();

// The same convolution for `channels` (<= depthwise_block_channels())
// consecutive planes at once, channels along the vector lanes: the faster
// path where planes are narrow (see prefers_channel_blocks). Plane c is read
// at x + c * in_plane with weights w + c * kernel_h * kernel_w and bias[c]
// (bias may be null), and written at y + c * out_plane. In the
// channel-blocked layout (runtime/core/layout.hpp; x_blocked, y_blocked) the
// block is one [in_h][in_w][lanes] array at x, or [out_h][out_w][lanes] at y,
// and in_plane or out_plane is not used; lanes of y past `channels` are
// written too (with what the zero weights give). s.activation is applied
// after the clamp, in registers (the planar paths ignore it).
void depthwise_channel_block(const PlaneConvShape& s, const float* x, bool x_blocked, int64_t in_plane,
                             int64_t channels, const float* w, const float* bias, float* y, bool y_blocked,
                             int64_t out_plane, DepthwiseScratch& scratch);

}  // namespace mote::cpu
