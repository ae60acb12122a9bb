// The column buffers behind the GEMM form of convolutions.
//
// Conv: the columns of one group are a [C_g * kvol, pixels] matrix, row
// r = ((c * KD + kd) * KH + kh) * KW + kw (W's own layout, so W_g [M_g, C_g *
// kvol] times the columns is the convolution), one column per output pixel.
//
// ConvTranspose: W_g^T [M_g * kvol, C_g] times the input [C_g, pixels] gives
// a [M_g * kvol, pixels] matrix (row r = ((m * KD + kd) * KH + kh) * KW + kw,
// one column per input pixel) whose entries are scattered, added, into the
// output: col2im_add.
//
// Both work on a tile of pixels [p0, p1) and a range of rows, so callers can
// keep the buffer in cache and split the work over threads.
#pragma once

#include <cstdint>

#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {

// Writes rows [row_begin, row_end) of Conv's column tile for output pixels
// [p0, p1): row r goes to col + r * ld, pixel p to column p - p0; positions in
// the padding get 0. `x` is the group's first input channel ([C_g, D, H, W]).
void im2col(const ConvGeometry& g, const float* x, int64_t p0, int64_t p1, int64_t row_begin, int64_t row_end,
            float* col, int64_t ld);

// The same columns without writing them: Conv's patches as offsets into a
// zero-padded copy of the group's input, for a GEMM that gathers them as it
// packs (IndexedMatrix). Column r of pixel p is at
// padded[pixel_offsets[p] + row_offsets[r]].
struct PaddedPatches {
  ConvGeometry::Dims size{1, 1, 1};  // the padded input's spatial size
  int64_t plane() const { return size[0] * size[1] * size[2]; }
};
PaddedPatches padded_patches(const ConvGeometry& g);
// Copies the `channels` planes at x into `padded` (channels * p.plane()
// floats), zeros around them.
void pad_input(const ConvGeometry& g, const PaddedPatches& p, const float* x, int64_t channels, float* padded);
// pixel_offsets gets g.out_pixels() entries, row_offsets channels * kvol.
void patch_offsets(const ConvGeometry& g, const PaddedPatches& p, int64_t channels, int64_t* pixel_offsets,
                   int64_t* row_offsets);

// Adds rows [row_begin, row_end) of ConvTranspose's column tile for input
// pixels [p0, p1) (row r at col + r * ld) into `y`, the group's first output
// channel ([M_g, OD, OH, OW]). Rows of different output channels touch
// different planes, so threads may split the rows by whole channels.
void col2im_add(const ConvGeometry& g, const float* col, int64_t ld, int64_t p0, int64_t p1, int64_t row_begin,
                int64_t row_end, float* y);

}  // namespace mote::cpu
