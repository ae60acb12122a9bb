// Optimised QLinearConv: per image, group and tile of output pixels, the
// input patches are gathered (im2col) in the int8 GEMM's format (qgemm.hpp:
// int16 pairs less the zero point, or with VNNI bytes as stored) and
// multiplied by the packed weights; the GEMM requantises as it stores.
// Depthwise convolutions take their own stencil kernel (qdepthwise.hpp).
// Weights, multipliers and bias are prepared once when they are constants.
#include <algorithm>
#include <cmath>
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

struct QConvState : KernelState {
  QgemmFormat format = QgemmFormat::kPairs;
  std::vector<std::vector<int32_t>> packed;  // per group
  std::vector<float> multiplier;             // x_scale * w_scale[m] / y_scale
  std::vector<int32_t> bias;                 // empty when zero everywhere
  QRequantize requantize;                    // lo, hi, zero and dtype
  int32_t x_zero = 0;
  // kQuads: B holds x + x_offset as uint8 (128 for i8 x, else 0).
  int32_t x_offset = 0;
  // Set instead of the GEMM's state for a depthwise convolution.
  std::unique_ptr<QDepthwiseWeights> depthwise;
};

bool constant_inputs(const KernelContext& ctx) {
  for (size_t i = kQcXScale; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && !ctx.in(i).raw()) return false;
  }
  return true;
}

// The output range in quanta relative to the zero point: the type's range,
// narrowed by a fused Relu or Clip.
Status output_range(const KernelContext& ctx, const QLinearConvParams& p, QRequantize& rq) {
  const bool is_signed = p.y_dtype == DType::I8;
  rq.lo = static_cast<float>((is_signed ? -128 : 0) - p.y_zero);
  rq.hi = static_cast<float>((is_signed ? 127 : 255) - p.y_zero);
  rq.zero = p.y_zero;
  rq.dtype = p.y_dtype;
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
  if (qdepthwise_applies(g)) {
    auto d = std::make_unique<QDepthwiseWeights>();
    for (int64_t m = 0; m < g.out_channels; ++m) {
      for (int64_t k = 0; k < depth; ++k) d->taps.push_back(static_cast<float>(int8_element(w, m * depth + k) - p.w_zero[m]));
      d->bias.push_back(b ? b[m] : 0);
      d->multiplier.push_back(p.x_scale * p.w_scale[m] / p.y_scale);
    }
    d->requantize = s->requantize;
    d->x_zero = p.x_zero;
    s->depthwise = std::move(d);
    return s;
  }
  std::vector<int32_t> shifted(static_cast<size_t>(g.out_channels * depth));
  bool fits_int8 = true;
  for (int64_t m = 0; m < g.out_channels; ++m) {
    for (int64_t k = 0; k < depth; ++k) {
      const int32_t v = int8_element(w, m * depth + k) - p.w_zero[m];
      shifted[static_cast<size_t>(m * depth + k)] = v;
      fits_int8 = fits_int8 && v >= -128 && v <= 127;
    }
  }
  s->format = fits_int8 ? qgemm_format() : QgemmFormat::kPairs;
  const bool quads = s->format == QgemmFormat::kQuads;
  s->x_offset = quads && ctx.in(kQcX).dtype() == DType::I8 ? 128 : 0;
  // The group's weights as the format packs them: int8 for kQuads, int16 for kPairs.
  auto pack_group = [&](auto element) {
    std::vector<decltype(element)> rows(static_cast<size_t>(mg * depth));
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const int32_t* shifted_rows = shifted.data() + grp * mg * depth;
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<decltype(element)>(shifted_rows[i]);
      s->packed.push_back(qgemm_pack_a(s->format, mg, depth, rows.data()));
    }
  };
  if (quads) {
    pack_group(int8_t{});
  } else {
    pack_group(int16_t{});
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

// floor(a / b) and ceil(a / b) for b > 0 and any a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Row k of the patch matrix (input channel and tap) for output pixels
// [n0, n0 + cols), each input value plus `add`; taps in the padding hold
// `pad` (the zero point, in the format's terms). Walks output rows so that
// each row is one run of loads (stride 1: contiguous, vectorised by the
// compiler).
template <class T, class O>
void patch_row(const ConvGeometry& g, const T* x, int32_t add, O pad, int64_t k, int64_t n0, int64_t cols,
               O* __restrict row) {
  const int64_t kvol = g.kernel_volume(), c = k / kvol, tap = k % kvol;
  const int64_t kd = tap / (g.kernel[1] * g.kernel[2]), kh = tap / g.kernel[2] % g.kernel[1], kw = tap % g.kernel[2];
  const T* plane = x + c * g.in_pixels();
  const int64_t out_w = g.out_size[2], out_hw = g.out_size[1] * out_w;
  const int64_t sw = g.stride[2], offset = kw * g.dilation[2] - g.pad_begin[2];
  // Output columns whose tap lies inside the row: iw = ow * sw + offset in [0, in_w).
  const int64_t ow_lo = std::max<int64_t>(0, ceil_div(-offset, sw));
  const int64_t ow_hi = std::min(out_w, floor_div(g.in_size[2] - 1 - offset, sw) + 1);
  std::fill(row, row + cols, pad);
  for (int64_t j = 0; j < cols;) {
    const int64_t n = n0 + j, od = n / out_hw, oh = n / out_w % g.out_size[1], ow = n % out_w;
    const int64_t run = std::min(out_w - ow, cols - j);
    const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
    const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
    if (id >= 0 && id < g.in_size[0] && ih >= 0 && ih < g.in_size[1]) {
      const T* src = plane + (id * g.in_size[1] + ih) * g.in_size[2] + offset;
      O* dst = row + j - ow;
      const int64_t lo = std::max(ow, ow_lo), hi = std::min(ow + run, ow_hi);
      if (sw == 1) {
        for (int64_t o = lo; o < hi; ++o) dst[o] = static_cast<O>(int32_t{src[o]} + add);
      } else {
        for (int64_t o = lo; o < hi; ++o) dst[o] = static_cast<O>(int32_t{src[o * sw]} + add);
      }
    }
    j += run;
  }
}

// Columns [n0, n0 + cols) of one image's group of patches as qgemm's B: the
// rows of each lane group (2 int16 or 4 uint8, type O) interleaved into
// int32 lanes, in panels (qgemm_b_index). `rows` is scratch for the rows of
// one group at a panel-rounded width.
template <class T, class O>
void gather_patches(const ConvGeometry& g, const T* x, int32_t add, O pad, int64_t n0, int64_t cols, int64_t groups,
                    int64_t step, O* rows, int32_t* __restrict b) {
  constexpr int64_t kGroup = 4 / sizeof(O);
  using U = std::make_unsigned_t<O>;
  const int64_t depth = g.in_channels_per_group() * g.kernel_volume();
  const int64_t width = (cols + step - 1) / step * step;
  for (int64_t k = 0; k < groups; ++k) {
    for (int64_t i = 0; i < kGroup; ++i) {
      O* row = rows + i * width;
      // Depth past the end meets zero weights: any value will do.
      if (k * kGroup + i < depth) {
        patch_row(g, x, add, pad, k * kGroup + i, n0, cols, row);
      } else {
        std::fill(row, row + cols, O{0});
      }
      std::fill(row + cols, row + width, O{0});
    }
    for (int64_t p = 0; p < width; p += step) {
      int32_t* out = b + qgemm_b_index(p, k, groups, step);
      for (int64_t t = 0; t < step; ++t) {
        uint32_t lane = 0;
        for (int64_t i = 0; i < kGroup; ++i) {
          lane |= static_cast<uint32_t>(static_cast<U>(rows[i * width + p + t])) << (8 * sizeof(O) * i);
        }
        out[t] = static_cast<int32_t>(lane);
      }
    }
  }
}

template <class TX>
void run_typed(KernelContext& ctx, const ConvGeometry& g, const QConvState& s) {
  const TX* x = ctx.in(kQcX).data<TX>();
  char* y = static_cast<char*>(ctx.out(0).raw());
  const size_t y_size = dtype_size(s.requantize.dtype);
  const int64_t mg = g.out_channels_per_group(), cg = g.in_channels_per_group();
  const bool quads = s.format == QgemmFormat::kQuads;
  const int64_t groups = qgemm_groups(s.format, cg * g.kernel_volume()), pixels = g.out_pixels();
  const int64_t step = qgemm_column_step();
  const int64_t padded_pixels = (pixels + step - 1) / step * step;
  const int64_t width = std::min(padded_pixels, std::max(step, kTileBytes / (groups * 4) / step * step));
  const int64_t tiles = (pixels + width - 1) / width;
  // Too few tiles for the threads (deep layers on small images): each tile's
  // rows are split too, every part gathering the tile again (cheap next to
  // its share of the product).
  const int64_t panels = (mg + kQgemmPanelRows - 1) / kQgemmPanelRows;
  const int64_t threads = ctx.pool->size();
  const int64_t parts = threads == 1 ? 1 : std::min(panels, std::max<int64_t>(1, 2 * threads / (g.batch * g.group * tiles)));
  const int64_t panels_per_part = (panels + parts - 1) / parts;
  ctx.pool->parallel_for(g.batch * g.group * tiles * parts, 1, [&](int64_t begin, int64_t end) {
    // The tile's B, then the rows of one lane group being interleaved.
    float* scratch = thread_scratch(static_cast<size_t>(groups * width + width));
    int32_t* b = reinterpret_cast<int32_t*>(scratch);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t part = task % parts, tile = task / parts % tiles, grp = task / (parts * tiles) % g.group;
      const int64_t n = task / (parts * tiles * g.group);
      const int64_t row0 = part * panels_per_part * kQgemmPanelRows;
      const int64_t rows = std::min(mg, row0 + panels_per_part * kQgemmPanelRows) - row0;
      if (rows <= 0) continue;
      const int64_t n0 = tile * width, cols = std::min(width, pixels - n0);
      const TX* xg = x + (n * g.in_channels + grp * cg) * g.in_pixels();
      if (quads) {
        const auto pad = static_cast<uint8_t>(s.x_zero + s.x_offset);
        gather_patches(g, xg, s.x_offset, pad, n0, cols, groups, step, reinterpret_cast<uint8_t*>(scratch + groups * width), b);
      } else {
        gather_patches(g, xg, -s.x_zero, int16_t{0}, n0, cols, groups, step,
                       reinterpret_cast<int16_t*>(scratch + groups * width), b);
      }
      QRequantize rq = s.requantize;
      const int64_t m0 = grp * mg + row0;  // first output channel of this part
      rq.multiplier = s.multiplier.data() + m0;
      rq.bias = s.bias.empty() ? nullptr : s.bias.data() + m0;
      const int64_t first = (n * g.out_channels + m0) * pixels + n0;
      const int32_t* a = s.packed[static_cast<size_t>(grp)].data() + row0 * groups;
      qgemm(s.format, a, rows, groups, b, cols, rq, y + first * y_size, pixels);
    }
  });
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
    qdepthwise_run(ctx, *g, *s->depthwise);
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
