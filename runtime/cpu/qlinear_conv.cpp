// Optimised QLinearConv: per image, group and tile of output pixels, the
// input patches are gathered (im2col) in the int8 GEMM's format (qgemm.hpp:
// int16 pairs less the zero point, or with VNNI bytes as stored) and
// multiplied by the packed weights; the GEMM requantises as it stores.
// Depthwise convolutions take their own stencil kernel (qdepthwise.hpp).
// Weights, multipliers and bias are prepared once when they are constants.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qdepthwise.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/qlinear_conv.hpp"

namespace mote::cpu {
namespace {

// Bytes of gathered patches per task: a tile stays in L2 while every panel
// of weights passes over it.
constexpr int64_t kTileBytes = 512 * 1024;

// floor(a / b) and ceil(a / b) for b > 0 and any a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Where row k of the patch matrix (input channel c and tap kd, kh, kw)
// reads, worked out at prepare so that the gathering loops divide nothing.
struct PatchTap {
  int64_t plane = 0;          // c * in_pixels
  int64_t depth_offset = 0;   // kd * dilation - pad, before adding od * stride
  int64_t height_offset = 0;  // kh * dilation - pad
  int64_t width_offset = 0;   // kw * dilation - pad
  int64_t ow_lo = 0, ow_hi = 0;  // output columns whose tap lies inside the row
};

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

// Whether taps made for geometry `a` serve `b`: the same kernel, strides
// and channels come from the weights and attributes, so only the sizes and
// pads (which follow the input's size) can differ.
bool same_patches(const ConvGeometry& a, const ConvGeometry& b) {
  return a.in_size == b.in_size && a.out_size == b.out_size && a.pad_begin == b.pad_begin;
}

struct QConvState : KernelState {
  QgemmFormat format = QgemmFormat::kPairs;
  std::vector<std::vector<int32_t>> packed;  // per group
  std::vector<float> multiplier;             // x_scale * w_scale[m] / y_scale
  std::vector<int32_t> bias;                 // empty when zero everywhere
  QRequantize requantize;                    // lo, hi, zero, dtype and the residual's scale and zero
  int32_t x_zero = 0;
  // kQuads: B holds x + x_offset as uint8 (128 for i8 x, else 0).
  int32_t x_offset = 0;
  // The patch gather's table, for the geometry prepare saw.
  ConvGeometry geometry;
  std::vector<PatchTap> taps;
  // Set instead of the GEMM's state for a depthwise convolution.
  std::unique_ptr<QDepthwiseWeights> depthwise;
};

// Whether every parameter (all inputs but X and the residual, which are
// activations) is known at prepare.
bool constant_inputs(const KernelContext& ctx) {
  for (size_t i = kQcXScale; i < ctx.inputs.size(); ++i) {
    if (i != kQcResidual && ctx.has_input(i) && !ctx.in(i).raw()) return false;
  }
  return true;
}

// The output range in quanta relative to the zero point: the type's range,
// narrowed by a fused Relu or Clip; and the residual's parameters.
Status output_range(const KernelContext& ctx, const QLinearConvParams& p, QRequantize& rq) {
  const bool is_signed = p.y_dtype == DType::I8;
  rq.lo = static_cast<float>((is_signed ? -128 : 0) - p.y_zero);
  rq.hi = static_cast<float>((is_signed ? 127 : 255) - p.y_zero);
  rq.zero = p.y_zero;
  rq.dtype = p.y_dtype;
  if (p.residual) {
    // The residual's pointer and dtype are the run's (it is an activation).
    rq.residual_zero = p.r_zero;
    rq.residual_multiplier = p.r_scale / p.y_scale;
  }
  const fb::FusedActivationT* act = ctx.op.fused.get();
  if (!act || act->kind == fb::ActivationKind::None) return {};
  if (act->kind == fb::ActivationKind::Relu) {
    rq.lo = std::max(rq.lo, 0.0f);
  } else if (act->kind == fb::ActivationKind::Clip) {
    rq.lo = std::max(rq.lo, act->min / p.y_scale);
    rq.hi = std::min(rq.hi, act->max / p.y_scale);
  } else {
    return ctx.fail("QLinearConv fuses only Relu and Clip");
  }
  return {};
}

// The weights less their zero points, row m of `depth` values each. int16
// holds any difference of two 8-bit values, at half the bytes of int32 (a
// ResNet-18 is 11 M weights, and this is built at every prepare).
template <class W>
void shift_weights(const W* w, const std::vector<int32_t>& zero, int64_t depth, int16_t* out) {
  for (size_t m = 0; m < zero.size(); ++m) {
    const int32_t z = zero[m];
    for (int64_t k = 0; k < depth; ++k, ++w, ++out) *out = static_cast<int16_t>(int32_t{*w} - z);
  }
}

std::vector<int16_t> shifted_weights(const Tensor& w, const std::vector<int32_t>& zero, int64_t depth) {
  std::vector<int16_t> out(zero.size() * static_cast<size_t>(depth));
  if (w.dtype() == DType::I8) {
    shift_weights(w.data<int8_t>(), zero, depth, out.data());
  } else {
    shift_weights(w.data<uint8_t>(), zero, depth, out.data());
  }
  return out;
}

Result<std::unique_ptr<QConvState>> build_state(const KernelContext& ctx, const ConvGeometry& g) {
  auto params = read_qlinear_conv_params(ctx, g.out_channels);
  if (!params.ok()) return params.status();
  const QLinearConvParams& p = *params;
  auto s = std::make_unique<QConvState>();
  MOTE_RETURN_IF_ERROR(output_range(ctx, p, s->requantize));
  s->x_zero = p.x_zero;
  const int64_t mg = g.out_channels_per_group(), depth = g.in_channels_per_group() * g.kernel_volume();
  const Tensor& w = ctx.in(kQcW);
  const int32_t* b = ctx.has_input(kQcBias) ? ctx.in(kQcBias).data<int32_t>() : nullptr;
  const std::vector<int16_t> shifted = shifted_weights(w, p.w_zero, depth);
  if (qdepthwise_applies(g)) {
    auto d = std::make_unique<QDepthwiseWeights>();
    d->taps.assign(shifted.begin(), shifted.end());
    for (int64_t m = 0; m < g.out_channels; ++m) {
      d->bias.push_back(b ? b[m] : 0);
      d->multiplier.push_back(p.x_scale * p.w_scale[m] / p.y_scale);
    }
    d->requantize = s->requantize;
    d->x_zero = p.x_zero;
    s->depthwise = std::move(d);
    return s;
  }
  const bool fits_int8 =
      std::all_of(shifted.begin(), shifted.end(), [](int16_t v) { return v >= -128 && v <= 127; });
  s->format = fits_int8 ? qgemm_format() : QgemmFormat::kPairs;
  const bool quads = s->format == QgemmFormat::kQuads;
  s->x_offset = quads && ctx.in(kQcX).dtype() == DType::I8 ? 128 : 0;
  s->geometry = g;
  s->taps = patch_taps(g);
  // The group's weights as the format packs them: int8 for kQuads, int16
  // (shifted as it is) for kPairs.
  std::vector<int8_t> rows(quads ? static_cast<size_t>(mg * depth) : 0);
  for (int64_t grp = 0; grp < g.group; ++grp) {
    const int16_t* group_rows = shifted.data() + grp * mg * depth;
    if (quads) {
      std::transform(group_rows, group_rows + mg * depth, rows.begin(), [](int16_t v) { return static_cast<int8_t>(v); });
      s->packed.push_back(qgemm_pack_a(s->format, mg, depth, rows.data()));
    } else {
      s->packed.push_back(qgemm_pack_a(s->format, mg, depth, group_rows));
    }
  }
  for (int64_t m = 0; m < g.out_channels; ++m) {
    s->multiplier.push_back(p.x_scale * p.w_scale[m] / p.y_scale);
  }
  // kQuads multiplies x + x_offset, not x - x_zero: the difference, (x_zero
  // + x_offset) times the row's weight sum, comes off the bias.
  const int64_t b_zero = quads ? int64_t{p.x_zero} + s->x_offset : 0;
  if (b || b_zero) {
    for (int64_t m = 0; m < g.out_channels; ++m) {
      int64_t row_sum = 0;
      for (int64_t k = 0; k < depth; ++k) row_sum += shifted[static_cast<size_t>(m * depth + k)];
      s->bias.push_back(static_cast<int32_t>((b ? b[m] : 0) - b_zero * row_sum));
    }
  }
  return s;
}

Result<ConvGeometry> geometry(const KernelContext& ctx) {
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(kQcX).shape(), ctx.in(kQcW).shape());
  if (!g.ok()) return ctx.fail(g.status().message());
  return g;
}

Status qlinear_conv_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  if (!constant_inputs(ctx)) return {};  // parameters computed at run time: built per run
  auto g = geometry(ctx);
  if (!g.ok()) return g.status();
  auto s = build_state(ctx, *g);
  if (!s.ok()) return s.status();
  state = std::move(*s);
  return {};
}

// The output position (depth, row, column) of a tile's first column.
struct OutputPosition {
  int64_t od = 0, oh = 0, ow = 0;
};

// One row of the patch matrix for output pixels [n0, n0 + cols) (n0 at
// `start`), each input value plus `add`; taps in the padding hold `pad` (the
// zero point, in the format's terms). Walks output rows so that each row is
// one run of loads.
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

// Columns [n0, n0 + cols) and depth groups [k0, k1) of one image's group of
// patches as qgemm's B: the rows of each lane group (2 int16 or 4 uint8, type O), gathered into
// `rows` (scratch for one group at a panel-rounded width), then interleaved
// into int32 lanes in panels (qgemm_interleave_b).
template <class T, class O>
void gather_patches(const ConvGeometry& g, const std::vector<PatchTap>& taps, QgemmFormat format, const T* x,
                    int32_t add, O pad, int64_t n0, int64_t cols, int64_t k0, int64_t k1, int64_t groups,
                    int64_t step, O* rows, int32_t* __restrict b) {
  constexpr int64_t kGroup = 4 / sizeof(O);
  const int64_t depth = static_cast<int64_t>(taps.size());
  const int64_t width = (cols + step - 1) / step * step;
  const int64_t out_w = g.out_size[2], out_hw = g.out_size[1] * out_w;
  const OutputPosition start{n0 / out_hw, n0 / out_w % g.out_size[1], n0 % out_w};
  for (int64_t k = k0; k < k1; ++k) {
    for (int64_t i = 0; i < kGroup; ++i) {
      O* row = rows + i * width;
      // Depth past the end meets zero weights: any value will do.
      if (k * kGroup + i < depth) {
        patch_row(g, taps[static_cast<size_t>(k * kGroup + i)], x, add, pad, start, cols, row);
      } else {
        std::fill(row, row + cols, O{0});
      }
      std::fill(row + cols, row + width, O{0});
    }
    qgemm_interleave_b(format, rows, width, k, groups, b);
  }
}

// The prepared requantisation with this run's residual tensor, if any.
QRequantize with_residual(const KernelContext& ctx, QRequantize rq) {
  if (ctx.has_input(kQcResidual)) {
    rq.residual = ctx.in(kQcResidual).raw();
    rq.residual_dtype = ctx.in(kQcResidual).dtype();
  }
  return rq;
}

// One run's layout of the work: tiles of output pixels, each gathered once
// into B and multiplied by row parts of the weights.
template <class TX>
class QConvRun {
 public:
  QConvRun(KernelContext& ctx, const ConvGeometry& g, const QConvState& s, const std::vector<PatchTap>& taps)
      : g_(g), s_(s), x_(ctx.in(kQcX).data<TX>()), y_(static_cast<char*>(ctx.out(0).raw())),
        requantize_(with_residual(ctx, s.requantize)),
        y_size_(dtype_size(s.requantize.dtype)), mg_(g.out_channels_per_group()), cg_(g.in_channels_per_group()),
        groups_(qgemm_groups(s.format, cg_ * g.kernel_volume())), pixels_(g.out_pixels()),
        step_(qgemm_column_step()), taps_(taps) {
    const int64_t padded_pixels = (pixels_ + step_ - 1) / step_ * step_;
    width_ = std::min(padded_pixels, std::max(step_, kTileBytes / (groups_ * 4) / step_ * step_));
    tiles_ = (pixels_ + width_ - 1) / width_;
  }

  int64_t tiles() const { return tiles_; }
  int64_t panels() const { return (mg_ + kQgemmPanelRows - 1) / kQgemmPanelRows; }
  // Floats of B for one tile, then of the rows being interleaved.
  size_t b_floats() const { return static_cast<size_t>(groups_ * width_); }
  size_t rows_floats() const { return static_cast<size_t>(width_); }

  // Depth groups [k0, k1) of tile `tile` of image n, group grp, into b;
  // `rows` is rows_floats() of scratch.
  void gather(int64_t n, int64_t grp, int64_t tile, int64_t k0, int64_t k1, float* rows, int32_t* b) const {
    const int64_t n0 = tile * width_, cols = std::min(width_, pixels_ - n0);
    const TX* xg = x_ + (n * g_.in_channels + grp * cg_) * g_.in_pixels();
    if (s_.format == QgemmFormat::kQuads) {
      const auto pad = static_cast<uint8_t>(s_.x_zero + s_.x_offset);
      gather_patches(g_, taps_, s_.format, xg, s_.x_offset, pad, n0, cols, k0, k1, groups_, step_,
                     reinterpret_cast<uint8_t*>(rows), b);
    } else {
      gather_patches(g_, taps_, s_.format, xg, -s_.x_zero, int16_t{0}, n0, cols, k0, k1, groups_, step_,
                     reinterpret_cast<int16_t*>(rows), b);
    }
  }

  // Output channels [row0, row0 + rows) of the group over the tile in b.
  void multiply(int64_t n, int64_t grp, int64_t tile, int64_t row0, int64_t rows, const int32_t* b) const {
    const int64_t n0 = tile * width_, cols = std::min(width_, pixels_ - n0);
    const int64_t m0 = grp * mg_ + row0;  // first output channel of this part
    const int64_t first = (n * g_.out_channels + m0) * pixels_ + n0;
    QRequantize rq = residual_at(requantize_, first);
    rq.multiplier = s_.multiplier.data() + m0;
    rq.bias = s_.bias.empty() ? nullptr : s_.bias.data() + m0;
    const int32_t* a = s_.packed[static_cast<size_t>(grp)].data() + row0 * groups_;
    qgemm(s_.format, a, rows, groups_, b, cols, rq, y_ + first * y_size_, pixels_);
  }

  int64_t groups() const { return groups_; }

 private:
  const ConvGeometry& g_;
  const QConvState& s_;
  const TX* x_;
  char* y_;
  QRequantize requantize_;  // the state's, with this run's residual
  size_t y_size_;
  int64_t mg_, cg_, groups_, pixels_, step_, width_ = 0, tiles_ = 0;
  const std::vector<PatchTap>& taps_;
};

template <class TX>
void run_typed(KernelContext& ctx, const ConvGeometry& g, const QConvState& s) {
  // The table from prepare, unless the input's size changed since.
  std::vector<PatchTap> local;
  if (!same_patches(s.geometry, g)) local = patch_taps(g);
  const QConvRun<TX> run(ctx, g, s, local.empty() ? s.taps : local);
  const int64_t threads = ctx.pool->size(), images = g.batch * g.group, tiles = run.tiles();
  if (threads == 1 || images * tiles >= 2 * threads) {
    // Enough tiles for the threads: each task gathers its tile and
    // multiplies all of the group's rows.
    ctx.pool->parallel_for(images * tiles, 1, [&](int64_t begin, int64_t end) {
      float* scratch = thread_scratch(run.b_floats() + run.rows_floats());
      int32_t* b = reinterpret_cast<int32_t*>(scratch);
      for (int64_t task = begin; task < end; ++task) {
        const int64_t tile = task % tiles, grp = task / tiles % g.group, n = task / (tiles * g.group);
        run.gather(n, grp, tile, 0, run.groups(), scratch + run.b_floats(), b);
        run.multiply(n, grp, tile, 0, g.out_channels_per_group(), b);
      }
    });
    return;
  }
  // Too few tiles (deep layers on small images): each tile is gathered once
  // by all threads, split over its depth, then its rows are split. B and a
  // rows slot per gathering task live in this thread's scratch, which the
  // tasks only use (they take no scratch of their own).
  const int64_t chunks = std::min(threads, run.groups());
  const int64_t per_chunk = (run.groups() + chunks - 1) / chunks;
  float* scratch = thread_scratch(run.b_floats() + static_cast<size_t>(chunks) * run.rows_floats());
  int32_t* b = reinterpret_cast<int32_t*>(scratch);
  const int64_t panels = run.panels(), parts = std::min(panels, 2 * threads);
  const int64_t panels_per_part = (panels + parts - 1) / parts;
  for (int64_t task = 0; task < images * tiles; ++task) {
    const int64_t tile = task % tiles, grp = task / tiles % g.group, n = task / (tiles * g.group);
    ctx.pool->parallel_for(chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t k0 = c * per_chunk, k1 = std::min(run.groups(), k0 + per_chunk);
        if (k0 < k1) run.gather(n, grp, tile, k0, k1, scratch + run.b_floats() + c * run.rows_floats(), b);
      }
    });
    ctx.pool->parallel_for(parts, 1, [&](int64_t begin, int64_t end) {
      for (int64_t part = begin; part < end; ++part) {
        const int64_t row0 = part * panels_per_part * kQgemmPanelRows;
        const int64_t rows = std::min(g.out_channels_per_group(), row0 + panels_per_part * kQgemmPanelRows) - row0;
        if (rows > 0) run.multiply(n, grp, tile, row0, rows, b);
      }
    });
  }
}

Status qlinear_conv_run(KernelContext& ctx) {
  auto g = geometry(ctx);
  if (!g.ok()) return g.status();
  std::unique_ptr<QConvState> per_run;
  const QConvState* s = static_cast<const QConvState*>(ctx.state);
  // Packed at prepare for another instruction set (MOTE_SIMD_TARGET changed
  // since): pack again for this one.
  if (s && !s->depthwise && s->format == QgemmFormat::kQuads && qgemm_format() != QgemmFormat::kQuads) s = nullptr;
  if (!s) {
    auto built = build_state(ctx, *g);
    if (!built.ok()) return built.status();
    per_run = std::move(*built);
    s = per_run.get();
  }
  if (s->depthwise) {
    qdepthwise_run(ctx, *g, *s->depthwise, with_residual(ctx, s->depthwise->requantize));
  } else if (ctx.in(kQcX).dtype() == DType::I8) {
    run_typed<int8_t>(ctx, *g, *s);
  } else {
    run_typed<uint8_t>(ctx, *g, *s);
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearConv, mote::cpu::qlinear_conv_run, mote::cpu::qlinear_conv_prepare);
