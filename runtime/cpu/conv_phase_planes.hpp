// A 2-D convolution's patches as rows of its input split into stride
// phases, for a GEMM that reads them as it packs (RowOffsetMatrix): no im2col
// buffer is written, and strided layers read consecutive floats.
//
// The zero-padded input of each channel is split into phase planes: phase
// (py, px) holds padded rows py, py + sh, py + 2 sh, ... and of each such row
// the columns px, px + sw, ...; only the phases the kernel reaches are kept
// (a 1x1 stride-2 layer keeps one, a 3x3 stride-2 layer four). Output pixel
// (oh, ow) reads tap (ky, kx) at row oh + ky / sh, column ow + kx / sw of
// phase (ky % sh, kx % sw). Each phase row has `cols` = out_w + (kw - 1) / sw
// floats, and the GEMM computes a grid of out_h rows of `cols` pixels, so
// that every tap's row of B is one run of a phase plane: grid pixel
// oh * cols + ow of tap r is at planes[row_offsets[r] + oh * cols + ow]. The
// (kw - 1) / sw last pixels of each grid row are not outputs (one in 29 for
// ResNet's 3x3 stride-2 layers) and are dropped when the grid is copied out.
// A band of output rows needs only its rows of the planes, and (kh - 1) / sh
// more: large images are done in bands, so the planes stay a bounded copy.
#pragma once

#include <cstdint>

#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

struct PhasePlanes {
  int64_t phases_h = 1, phases_w = 1;  // phases kept along each axis
  int64_t rows = 0, cols = 0;          // of each phase plane
  int64_t plane() const { return rows * cols; }
  // Floats for `channels` channels, with the slack the last tap's run reads
  // past its plane (into grid pixels that are dropped).
  int64_t floats(int64_t channels) const { return channels * phases_h * phases_w * plane() + cols; }
};

// Whether a convolution can run this way: 2-D, no dilation, pads >= 0.
bool phase_planes_apply(const ConvGeometry& g);
// The planes a band of `out_rows` output rows reads (out_h of them: the
// whole planes).
PhasePlanes phase_planes(const ConvGeometry& g, int64_t out_rows);

// Writes the phase planes of `channels` input planes at x ([C, H, W]) to
// dst, from phase row `first_row` (a band's first output row) on: channel
// c's phase (py, px) at ((c * phases_h + py) * phases_w + px) * plane(),
// zeros where the padding is. Callers may fill ranges of channels in
// parallel, then zero the slack once (zero_phase_slack).
void fill_phase_planes(const ConvGeometry& g, const PhasePlanes& layout, int64_t first_row, const float* x,
                       int64_t channels, float* dst);
// Zeroes the slack after `channels` channels' planes at dst (floats()): it
// only feeds dropped grid pixels, but must not be left uninitialised.
void zero_phase_slack(const PhasePlanes& layout, int64_t channels, float* dst);

// row_offsets[r] for the channels * kvol rows of the patches, r = (c * KH +
// ky) * KW + kx (W's own order).
void phase_row_offsets(const ConvGeometry& g, const PhasePlanes& layout, int64_t channels, int64_t* row_offsets);

}  // namespace mote::cpu
