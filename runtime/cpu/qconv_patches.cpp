#include "runtime/cpu/qconv_patches.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/cpu/row_simd.hpp"

namespace mote::cpu {
namespace {

// floor(a / b) and ceil(a / b) for b > 0 and any a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

std::vector<PatchTap> patch_taps(const ConvGeometry& g) {
  const int64_t out_w = g.out_size[2], sw = g.stride[2];
  // The width columns depend only on kw: worked out once per kw.
  std::vector<PatchTap> columns(static_cast<size_t>(g.kernel[2]));
  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
    PatchTap& t = columns[static_cast<size_t>(kw)];
    t.width_offset = kw * g.dilation[2] - g.pad_begin[2];
    // iw = ow * sw + width_offset in [0, in_w).
    t.ow_lo = std::max<int64_t>(0, ceil_div(-t.width_offset, sw));
    t.ow_hi = std::min(out_w, floor_div(g.in_size[2] - 1 - t.width_offset, sw) + 1);
  }
  std::vector<PatchTap> taps;
  taps.reserve(static_cast<size_t>(g.in_channels_per_group() * g.kernel_volume()));
  for (int64_t c = 0; c < g.in_channels_per_group(); ++c) {
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (PatchTap t : columns) {
          t.plane = c * g.in_pixels();
          t.depth_offset = kd * g.dilation[0] - g.pad_begin[0];
          t.height_offset = kh * g.dilation[1] - g.pad_begin[1];
          taps.push_back(t);
        }
      }
    }
  }
  return taps;
}

// Stride 1 and an output of the input's size, in one or two dimensions (a
// shift along depth would cross into the neighbouring depth slice, and a
// depth pad would put the only tap in the padding).
bool shifts_apply(const ConvGeometry& g) {
  return g.in_size[0] == 1 && g.kernel[0] == 1 && g.pad_begin[0] == 0 && g.out_size == g.in_size &&
         g.stride[1] == 1 && g.stride[2] == 1;
}

// The masks of a shifted plan: for each kernel column's shift, the output
// pixels (rows of `width`) whose shifted column leaves [0, width) and so
// reads the neighbouring row, where the tap takes the pad.
void plan_edge_masks(const std::vector<int64_t>& column_shifts, int64_t width, int64_t pixels, int64_t step,
                     PatchPlan& plan) {
  plan.mask_stride = pixels + step;
  plan.masks.assign(static_cast<size_t>(plan.mask_stride) * column_shifts.size(), 0);
  for (size_t kw = 0; kw < column_shifts.size(); ++kw) {
    const int64_t shift = column_shifts[kw];
    const int64_t lo = std::clamp<int64_t>(-shift, 0, width), hi = std::clamp<int64_t>(width - shift, 0, width);
    uint8_t* mask = plan.masks.data() + static_cast<int64_t>(kw) * plan.mask_stride;
    for (int64_t row = 0; row < pixels; row += width) {
      std::fill(mask + row, mask + row + lo, uint8_t{1});
      std::fill(mask + row + hi, mask + row + width, uint8_t{1});
    }
  }
}

void plan_shifts(const ConvGeometry& g, int64_t step, PatchPlan& plan) {
  const int64_t w = g.in_size[2], pixels = g.out_pixels();
  std::vector<int64_t> dh, dw;  // per kh, per kw
  for (int64_t kh = 0; kh < g.kernel[1]; ++kh) dh.push_back(kh * g.dilation[1] - g.pad_begin[1]);
  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) dw.push_back(kw * g.dilation[2] - g.pad_begin[2]);
  const int64_t lowest = dh.front() * w + dw.front(), highest = dh.back() * w + dw.back();
  plan.shifted = true;
  plan.margins_read = lowest != 0 || highest != 0;
  plan.margin_before = std::max<int64_t>(0, -lowest);
  // After the plane: the farthest shift, and the columns of the last
  // panel past the end, which are computed but never stored.
  plan.plane_stride = plan.margin_before + pixels + std::max<int64_t>(0, highest) + step;
  plan_edge_masks(dw, w, pixels, step, plan);
  for (int64_t c = 0; c < g.in_channels_per_group(); ++c) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        plan.tap_offsets.push_back(c * plan.plane_stride + plan.margin_before + dh[kh] * w + dw[kw]);
        const bool edges = dw[kw] != 0;
        plan.tap_masks.push_back(edges ? static_cast<int32_t>(kw) : -1);
      }
    }
  }
}

// A tap's offset from its output's first input row or column (k * dilation
// - pad) at stride s, as the phase it reads (offset mod s) and that phase's
// shift (offset div s, rounded down).
struct PhaseShift {
  int64_t phase, shift;
};
PhaseShift phase_shift(int64_t offset, int64_t stride) {
  const int64_t shift = floor_div(offset, stride);
  return {offset - shift * stride, shift};
}

// Strided 2-D layers (qconv_patches.hpp): any stride above 1 in height or
// width, pads and dilation as they come, where the patch matrix has
// kMinPhaseDepth rows or more. The copy costs a pass over the input's
// phases, gathering one per row: with few rows gathering is cheaper
// (MobileNetV2's 3x3 stem on 3 channels, 27 rows: 0.085 ms gathered, 0.106
// through phases; ResNet-18's 7x7 one, 147 rows: 0.51 -> 0.41 ms through
// phases), and a 1x1 kernel's one tap reads one phase (ResNet-18's 1x1
// stride-2 layers took 1.2x to 1.4x as long through it).
constexpr int64_t kMinPhaseDepth = 64;

bool phases_apply(const ConvGeometry& g) {
  if (g.in_size[0] != 1 || g.kernel[0] != 1 || g.pad_begin[0] != 0 || (g.stride[1] == 1 && g.stride[2] == 1) ||
      g.kernel_volume() == 1 || g.in_channels_per_group() * g.kernel_volume() < kMinPhaseDepth) {
    return false;
  }
  // A phase is out_w columns wide, and a tap that reads past its last
  // column gets the pad (a mask, as at stride 1): right only where the
  // input ends there too, so not when the right pad is shorter than the
  // kernel's reach.
  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
    const PhaseShift column = phase_shift(kw * g.dilation[2] - g.pad_begin[2], g.stride[2]);
    if (column.shift > 0 && g.out_size[2] * g.stride[2] + column.phase < g.in_size[2]) return false;
  }
  return true;
}

void plan_phases(const ConvGeometry& g, int64_t step, PatchPlan& plan) {
  const int64_t sh = g.stride[1], sw = g.stride[2], out_w = g.out_size[2], pixels = g.out_pixels();
  // Tap (kh, kw) reads phase (a, b) at row oh + dr, column ow + dq.
  std::vector<int64_t> a, dr, b, dq;
  for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
    const PhaseShift row = phase_shift(kh * g.dilation[1] - g.pad_begin[1], sh);
    a.push_back(row.phase);
    dr.push_back(row.shift);
  }
  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
    const PhaseShift column = phase_shift(kw * g.dilation[2] - g.pad_begin[2], sw);
    b.push_back(column.phase);
    dq.push_back(column.shift);
  }
  const auto [dr_lo, dr_hi] = std::minmax_element(dr.begin(), dr.end());
  const auto [dq_lo, dq_hi] = std::minmax_element(dq.begin(), dq.end());
  plan.shifted = true;
  plan.first_phase_row = *dr_lo;
  plan.phase_rows = g.out_size[1] + *dr_hi - *dr_lo;
  plan.margin_before = std::max<int64_t>(0, -*dq_lo);
  // After a phase: the farthest column shift, and the columns of the last
  // panel past the end, which are computed but never stored.
  plan.phase_stride = plan.margin_before + plan.phase_rows * out_w + std::max<int64_t>(0, *dq_hi) + step;
  plan.plane_stride = sh * sw * plan.phase_stride;
  plan_edge_masks(dq, out_w, pixels, step, plan);
  plan.phases_read.assign(static_cast<size_t>(sh * sw), 0);
  for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
    for (int64_t kw = 0; kw < g.kernel[2]; ++kw) plan.phases_read[static_cast<size_t>(a[kh] * sw + b[kw])] = 1;
  }
  for (int64_t c = 0; c < g.in_channels_per_group(); ++c) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t phase = a[kh] * sw + b[kw];
        plan.tap_offsets.push_back(c * plan.plane_stride + phase * plan.phase_stride + plan.margin_before +
                                   (dr[kh] - plan.first_phase_row) * out_w + dq[kw]);
        plan.tap_masks.push_back(dq[kw] != 0 ? static_cast<int32_t>(kw) : -1);
      }
    }
  }
}

// The output position (depth, row, column) of a tile's first column.
struct OutputPosition {
  int64_t od = 0, oh = 0, ow = 0;
};

// One row of the patch matrix for output pixels [n0, n0 + cols) (n0 at
// `start`), each input value plus `add`; taps in the padding hold `pad`.
// Walks output rows so that each row is one run of loads.
template <class T, class O>
void patch_row(const ConvGeometry& g, const PatchTap& tap, const T* x, int32_t add, O pad, OutputPosition start,
               int64_t cols, O* __restrict row) {
  const T* plane = x + tap.plane;
  const int64_t out_w = g.out_size[2], sw = g.stride[2];
  std::fill(row, row + cols, pad);
  int64_t od = start.od, oh = start.oh, ow = start.ow;
  for (int64_t j = 0; j < cols;) {
    const int64_t run = std::min(out_w - ow, cols - j);
    const int64_t id = od * g.stride[0] + tap.depth_offset, ih = oh * g.stride[1] + tap.height_offset;
    if (id >= 0 && id < g.in_size[0] && ih >= 0 && ih < g.in_size[1]) {
      const T* src = plane + (id * g.in_size[1] + ih) * g.in_size[2] + tap.width_offset;
      O* dst = row + j - ow;
      const int64_t lo = std::max(ow, tap.ow_lo), hi = std::min(ow + run, tap.ow_hi);
      // Strides 1 and 2 as constants: the compiler vectorises both. A plain
      // copy (uint8 activations, VNNI) goes to memcpy, faster on rows of a
      // few dozen bytes than a vector loop with its scalar ends.
      if (sw == 1 && std::is_same_v<T, O> && add == 0) {
        if (hi > lo) std::memcpy(dst + lo, src + lo, static_cast<size_t>(hi - lo) * sizeof(O));
      } else if (sw == 1) {
        for (int64_t o = lo; o < hi; ++o) dst[o] = static_cast<O>(int32_t{src[o]} + add);
      } else if (sw == 2) {
        for (int64_t o = lo; o < hi; ++o) dst[o] = static_cast<O>(int32_t{src[2 * o]} + add);
      } else {
        for (int64_t o = lo; o < hi; ++o) dst[o] = static_cast<O>(int32_t{src[o * sw]} + add);
      }
    }
    j += run;
    ow = 0;
    if (++oh == g.out_size[1]) {
      oh = 0;
      ++od;
    }
  }
}

// Gathered: each depth group's rows into `rows` (at a step-rounded width),
// then interleaved.
template <class T, class O>
void gather_rows(const PatchPlan& plan, const PatchValues& v, const T* x, int64_t n0, int64_t cols, int64_t k0,
                 int64_t k1, int64_t groups, O* rows, int32_t* b) {
  constexpr int64_t kGroup = 4 / sizeof(O);
  const ConvGeometry& g = plan.geometry;
  const int64_t depth = static_cast<int64_t>(plan.taps.size());
  const int64_t width = (cols + plan.step - 1) / plan.step * plan.step;
  const int64_t out_w = g.out_size[2], out_hw = g.out_size[1] * out_w;
  const OutputPosition start{n0 / out_hw, n0 / out_w % g.out_size[1], n0 % out_w};
  QgemmGroupRows group_rows;
  for (int64_t i = 0; i < kGroup; ++i) group_rows.rows[i] = rows + i * width;
  for (int64_t k = k0; k < k1; ++k) {
    for (int64_t i = 0; i < kGroup; ++i) {
      O* row = rows + i * width;
      // Depth past the end meets zero weights: any value will do.
      if (k * kGroup + i < depth) {
        patch_row(g, plan.taps[static_cast<size_t>(k * kGroup + i)], x, v.add, static_cast<O>(v.pad), start, cols,
                  row);
      } else {
        std::fill(row, row + cols, O{0});
      }
      std::fill(row + cols, row + width, O{0});
    }
    qgemm_interleave_b(v.format, group_rows, width, k, groups, b);
  }
}

// Shifted: each row read in place from the copy at its offset.
template <class O>
void interleave_shifted(const PatchPlan& plan, const PatchValues& v, const O* copy, int64_t n0, int64_t cols,
                        int64_t k0, int64_t k1, int64_t groups, int32_t* b) {
  constexpr int64_t kGroup = 4 / sizeof(O);
  const int64_t depth = static_cast<int64_t>(plan.tap_offsets.size());
  const int64_t width = (cols + plan.step - 1) / plan.step * plan.step;
  QgemmGroupRows group_rows;
  group_rows.pad = v.pad;
  for (int64_t k = k0; k < k1; ++k) {
    for (int64_t i = 0; i < kGroup; ++i) {
      // Depth past the end meets zero weights: any row will do.
      const auto row = static_cast<size_t>(std::min(k * kGroup + i, depth - 1));
      group_rows.rows[i] = copy + plan.tap_offsets[row] + n0;
      const int32_t mask = plan.tap_masks[row];
      group_rows.pad_masks[i] = mask < 0 ? nullptr : plan.masks.data() + mask * plan.mask_stride + n0;
    }
    qgemm_interleave_b(v.format, group_rows, width, k, groups, b);
  }
}

template <class T, class O>
void copy_planes(const PatchPlan& plan, const PatchValues& v, const T* x, int64_t channels, O* copy,
                 ThreadPool& pool) {
  const int64_t pixels = plan.geometry.in_pixels(), stride = plan.plane_stride, before = plan.margin_before;
  const O pad = static_cast<O>(v.pad);
  pool.parallel_for(channels, 4, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      O* plane = copy + c * stride;
      const T* src = x + c * pixels;
      if (plan.margins_read) std::fill(plane, plane + before, pad);
      if (std::is_same_v<T, O> && v.add == 0) {
        std::memcpy(plane + before, src, static_cast<size_t>(pixels) * sizeof(O));
      } else if constexpr (std::is_same_v<O, uint8_t>) {
        // int8 bytes as uint8 (add 128), through Highway: the byte loop
        // below, which reloaded its operands after every byte it stored
        // (a uint8_t store may alias them), took 45 % of a TFLite int8
        // MobileNetV2, whose activations are int8.
        simd::add_to_bytes(reinterpret_cast<const uint8_t*>(src), pixels, static_cast<uint8_t>(v.add),
                           plane + before);
      } else {
        const int32_t add = v.add;
        O* __restrict out = plane + before;
        for (int64_t i = 0; i < pixels; ++i) out[i] = static_cast<O>(int32_t{src[i]} + add);
      }
      if (plan.margins_read) std::fill(plane + before + pixels, plane + stride, pad);
    }
  });
}

// Each channel's phases (plan_phases): row r, column q of phase (a, b) is
// x[r * sh + a][q * sw + b] + add, or `pad` outside the input, between pads.
template <class T, class O>
void copy_phases(const PatchPlan& plan, const PatchValues& v, const T* x, int64_t channels, O* copy,
                 ThreadPool& pool) {
  const ConvGeometry& g = plan.geometry;
  const int64_t sh = g.stride[1], sw = g.stride[2], in_h = g.in_size[1], in_w = g.in_size[2];
  const int64_t out_w = g.out_size[2], pixels = g.in_pixels();
  const O pad = static_cast<O>(v.pad);
  const int32_t add = v.add;
  pool.parallel_for(channels * sh * sw, 4, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t c = task / (sh * sw), a = task / sw % sh, b = task % sw;
      if (!plan.phases_read[static_cast<size_t>(a * sw + b)]) continue;  // a 1x3 kernel reads two of four
      const T* src = x + c * pixels;
      O* phase = copy + c * plan.plane_stride + (a * sw + b) * plan.phase_stride;
      std::fill(phase, phase + plan.phase_stride, pad);
      // Columns q whose input column q * sw + b lies in the row, rows r
      // whose input row lies in the image (a run: ih grows with r).
      const int64_t q_hi = std::min(out_w, in_w > b ? (in_w - b + sw - 1) / sw : 0);
      int64_t r0 = 0, r1 = plan.phase_rows;
      while (r0 < r1 && (plan.first_phase_row + r0) * sh + a < 0) ++r0;
      while (r1 > r0 && (plan.first_phase_row + r1 - 1) * sh + a >= in_h) --r1;
      if (r0 == r1 || q_hi <= 0) continue;
      const T* first_row = src + ((plan.first_phase_row + r0) * sh + a) * in_w + b;
      O* first_out = phase + plan.margin_before + r0 * out_w;
      if (sw == 2 && std::is_same_v<O, uint8_t>) {
        // Bytes at stride 2 through Highway: the compiler left this loop
        // scalar in the baseline x86-64 build (3 % of int8 ResNet-18).
        simd::copy_every_second_byte(reinterpret_cast<const uint8_t*>(first_row), sh * in_w, q_hi, r1 - r0,
                                     static_cast<uint8_t>(add), reinterpret_cast<uint8_t*>(first_out), out_w);
        continue;
      }
      for (int64_t r = r0; r < r1; ++r) {
        const T* __restrict row = first_row + (r - r0) * sh * in_w;
        O* __restrict out = first_out + (r - r0) * out_w;
        for (int64_t q = 0; q < q_hi; ++q) out[q] = static_cast<O>(int32_t{row[q * sw]} + add);
      }
    }
  });
}

template <class O>
void copy_typed(const PatchPlan& plan, const PatchValues& v, const void* x, DType x_dtype, O* copy,
                ThreadPool& pool) {
  const int64_t channels = plan.geometry.batch * plan.geometry.in_channels;
  const bool phases = plan.phase_rows > 0;
  if (x_dtype == DType::I8) {
    const auto* xi = static_cast<const int8_t*>(x);
    phases ? copy_phases(plan, v, xi, channels, copy, pool) : copy_planes(plan, v, xi, channels, copy, pool);
  } else {
    const auto* xu = static_cast<const uint8_t*>(x);
    phases ? copy_phases(plan, v, xu, channels, copy, pool) : copy_planes(plan, v, xu, channels, copy, pool);
  }
}

template <class T>
void gather_typed(const PatchPlan& plan, const PatchValues& v, const T* x, int64_t n0, int64_t cols, int64_t k0,
                  int64_t k1, int64_t groups, void* rows, int32_t* b) {
  if (v.format == QgemmFormat::kQuads) {
    gather_rows(plan, v, x, n0, cols, k0, k1, groups, static_cast<uint8_t*>(rows), b);
  } else {
    gather_rows(plan, v, x, n0, cols, k0, k1, groups, static_cast<int16_t*>(rows), b);
  }
}

}  // namespace

PatchPlan plan_patches(const ConvGeometry& g, int64_t step) {
  PatchPlan plan;
  plan.geometry = g;
  plan.step = step;
  if (shifts_apply(g)) {
    plan_shifts(g, step, plan);
  } else if (phases_apply(g)) {
    plan_phases(g, step, plan);
  } else {
    plan.taps = patch_taps(g);
  }
  return plan;
}

bool plan_serves(const PatchPlan& plan, const ConvGeometry& g, int64_t step) {
  const ConvGeometry& a = plan.geometry;
  return plan.step == step && a.in_size == g.in_size && a.out_size == g.out_size && a.pad_begin == g.pad_begin &&
         a.batch == g.batch;
}

size_t shifted_copy_bytes(const PatchPlan& plan, const PatchValues& v) {
  const size_t element = v.format == QgemmFormat::kQuads ? 1 : 2;
  return static_cast<size_t>(plan.geometry.batch * plan.geometry.in_channels * plan.plane_stride) * element;
}

void copy_shifted_planes(const PatchPlan& plan, const PatchValues& v, const void* x, DType x_dtype, void* copy,
                         ThreadPool& pool) {
  if (v.format == QgemmFormat::kQuads) {
    copy_typed(plan, v, x, x_dtype, static_cast<uint8_t*>(copy), pool);
  } else {
    copy_typed(plan, v, x, x_dtype, static_cast<int16_t*>(copy), pool);
  }
}

void gather_b(const PatchPlan& plan, const PatchValues& v, const void* source, DType x_dtype, int64_t first_channel,
              int64_t n0, int64_t cols, int64_t k0, int64_t k1, int64_t groups, void* rows, int32_t* b) {
  if (plan.shifted) {
    const int64_t offset = first_channel * plan.plane_stride;
    if (v.format == QgemmFormat::kQuads) {
      interleave_shifted(plan, v, static_cast<const uint8_t*>(source) + offset, n0, cols, k0, k1, groups, b);
    } else {
      interleave_shifted(plan, v, static_cast<const int16_t*>(source) + offset, n0, cols, k0, k1, groups, b);
    }
    return;
  }
  const int64_t offset = first_channel * plan.geometry.in_pixels();
  if (x_dtype == DType::I8) {
    gather_typed(plan, v, static_cast<const int8_t*>(source) + offset, n0, cols, k0, k1, groups, rows, b);
  } else {
    gather_typed(plan, v, static_cast<const uint8_t*>(source) + offset, n0, cols, k0, k1, groups, rows, b);
  }
}

}  // namespace mote::cpu
