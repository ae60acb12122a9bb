// Where the int8 convolution's B comes from: the patch matrix (one row per
// input channel and kernel tap, one column per output pixel) in qgemm's
// interleaved format, a tile of columns at a time. Two ways, chosen per
// geometry when the plan is made:
//   - gathered (any geometry): each row is gathered from the input into a
//     scratch row (im2col), then four (or two) rows are interleaved;
//   - shifted (stride 1, output the size of its input: 3x3 with padding 1,
//     1x1, 1-D kernels...): row (c, kh, kw) at output pixel p is plane c at
//     p + dh * width + dw, the plane shifted by a constant, so rows are read
//     in place from a copy of the input whose planes sit between margins of
//     the padding value. A shift that crosses the image's left or right edge
//     reads the neighbouring row there, so a mask per kernel column marks
//     those pixels and the interleave puts the padding value in. This skips
//     the scratch rows and their copies: a third of the int8 ResNet-18.
//     Strided 2-D layers take the same way through the input split into
//     stride phases: phase (a, b) of a channel holds x[r * sh + a][q * sw + b]
//     at row r, column q, out_w columns wide, so tap (kh, kw) is one phase
//     shifted by a constant, as at stride 1 (the gathered rows' strided
//     loads were 8 % of int8 ResNet-18, its 7x7 stride-2 stem the most).
#pragma once

#include <cstdint>
#include <vector>

#include "mote/tensor.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

// Where row k of the patch matrix (input channel c and tap kd, kh, kw)
// reads on the gathered path, worked out once so that gathering divides
// nothing.
struct PatchTap {
  int64_t plane = 0;             // c * in_pixels
  int64_t depth_offset = 0;      // kd * dilation - pad, before adding od * stride
  int64_t height_offset = 0;     // kh * dilation - pad
  int64_t width_offset = 0;      // kw * dilation - pad
  int64_t ow_lo = 0, ow_hi = 0;  // output columns whose tap lies inside the row
};

// How an image group's input values enter B: x + add, and `pad` where a tap
// falls in the padding (uint8 for kQuads, int16 for kPairs).
struct PatchValues {
  QgemmFormat format = QgemmFormat::kPairs;
  int32_t add = 0;
  int32_t pad = 0;
};

// The rows of B for one geometry and column step.
struct PatchPlan {
  ConvGeometry geometry;
  int64_t step = 0;            // qgemm_column_step() the plan was made for
  bool shifted = false;        // which way (above)
  std::vector<PatchTap> taps;  // gathered: per row
  // Shifted: the copy's planes, in elements, and per row its offset in an
  // image group's copy and its mask (an index into masks, or -1: none).
  int64_t margin_before = 0, plane_stride = 0;
  // Whether an output the GEMM stores reads the margins (the pad values
  // there): not for a 1x1 kernel, whose margin only the last panel's unstored
  // columns read, so its copy skips filling them (two of three library calls
  // per plane: a Gemm run as a 1x1 convolution has planes of one pixel).
  bool margins_read = true;
  std::vector<int64_t> tap_offsets;
  std::vector<int32_t> tap_masks;
  int64_t mask_stride = 0;     // pixels + step
  std::vector<uint8_t> masks;  // per kernel column: nonzero at pixels that take the pad
  // Shifted through phases (strides above 1): each channel's slot in the
  // copy holds stride_h * stride_w phases of phase_stride elements, each
  // phase_rows rows of out_w from input phase row first_phase_row on,
  // after margin_before elements. 0 phase_rows: a shifted copy of the planes.
  int64_t phase_rows = 0, first_phase_row = 0, phase_stride = 0;
  std::vector<uint8_t> phases_read;  // per phase: whether a tap reads it (only those are filled)
};

PatchPlan plan_patches(const ConvGeometry& g, int64_t step);

// Whether `plan` serves geometry g at this step: the kernel, strides and
// channels come from the weights and attributes, so only the sizes and pads
// (which follow the input's size) can differ.
bool plan_serves(const PatchPlan& plan, const ConvGeometry& g, int64_t step);

// Shifted plans: bytes of the input's copy (all images and channels), and
// the copy itself, made by `pool` (x: int8 or uint8 as `x_dtype`).
size_t shifted_copy_bytes(const PatchPlan& plan, const PatchValues& v);
void copy_shifted_planes(const PatchPlan& plan, const PatchValues& v, const void* x, DType x_dtype, void* copy,
                         ThreadPool& pool);

// Depth groups [k0, k1) of columns [n0, n0 + cols) of the patches of the
// image group whose first input channel (counting over images) is
// first_channel, into b (qgemm's B of `groups` depth groups). `source` is
// the input x (x_dtype) when gathered, its copy when shifted; `rows` is
// scratch for one depth group's rows at a step-rounded width (gathered).
void gather_b(const PatchPlan& plan, const PatchValues& v, const void* source, DType x_dtype, int64_t first_channel,
              int64_t n0, int64_t cols, int64_t k0, int64_t k1, int64_t groups, void* rows, int32_t* b);

}  // namespace mote::cpu
