// Optimised QLinearConv: per image, group and tile of output pixels, the
// zero-point-shifted input patches are gathered as int16 pairs (im2col) and
// multiplied by the shifted weights in the int8 GEMM (qgemm.hpp), which
// requantises as it stores. Weights, multipliers and bias are prepared once
// when they are constants.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/core/kernel.hpp"
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
  std::vector<std::vector<int32_t>> packed;  // per group
  std::vector<float> multiplier;             // x_scale * w_scale[m] / y_scale
  std::vector<int32_t> bias;                 // empty without B
  QRequantize requantize;                    // lo, hi, zero and dtype
  int32_t x_zero = 0;
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
  std::vector<int16_t> shifted(static_cast<size_t>(mg * depth));
  for (int64_t grp = 0; grp < g.group; ++grp) {
    for (int64_t r = 0; r < mg; ++r) {
      const int64_t m = grp * mg + r;
      for (int64_t k = 0; k < depth; ++k) {
        shifted[static_cast<size_t>(r * depth + k)] = static_cast<int16_t>(int8_element(w, m * depth + k) - p.w_zero[m]);
      }
    }
    s->packed.push_back(qgemm_pack_a(mg, depth, shifted.data()));
  }
  for (int64_t m = 0; m < g.out_channels; ++m) {
    s->multiplier.push_back(p.x_scale * p.w_scale[m] / p.y_scale);
  }
  if (ctx.has_input(kQcBias)) {
    const int32_t* b = ctx.in(kQcBias).data<int32_t>();
    s->bias.assign(b, b + g.out_channels);
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

// Gathers columns [n0, n0 + width) of image `image`'s group `grp` patches,
// less the zero point, into pairs [pairs][ldb]; padding and columns past
// the last pixel are zero.
template <class T>
void gather_patches(const ConvGeometry& g, const T* x, int32_t x_zero, int64_t n0, int64_t width, int32_t* b,
                    int64_t ldb) {
  const int64_t cg = g.in_channels_per_group(), kvol = g.kernel_volume(), depth = cg * kvol;
  const int64_t pixels = g.out_pixels();
  int16_t* out = reinterpret_cast<int16_t*>(b);
  if (depth % 2) std::fill(out + (depth / 2) * ldb * 2, out + (depth / 2 + 1) * ldb * 2, int16_t{0});
  for (int64_t k = 0; k < depth; ++k) {
    const int64_t c = k / kvol, tap = k % kvol;
    const int64_t kd = tap / (g.kernel[1] * g.kernel[2]), kh = tap / g.kernel[2] % g.kernel[1], kw = tap % g.kernel[2];
    const T* plane = x + c * g.in_pixels();
    int16_t* row = out + (k / 2) * ldb * 2 + (k % 2);
    for (int64_t j = 0; j < ldb; ++j) {
      const int64_t n = n0 + j;
      int16_t v = 0;
      if (j < width && n < pixels) {
        const int64_t ow = n % g.out_size[2], oh = n / g.out_size[2] % g.out_size[1], od = n / (g.out_size[1] * g.out_size[2]);
        const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
        const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
        if (id >= 0 && id < g.in_size[0] && ih >= 0 && ih < g.in_size[1] && iw >= 0 && iw < g.in_size[2]) {
          v = static_cast<int16_t>(int32_t{plane[(id * g.in_size[1] + ih) * g.in_size[2] + iw]} - x_zero);
        }
      }
      row[j * 2] = v;
    }
  }
}

template <class TX>
void run_typed(KernelContext& ctx, const ConvGeometry& g, const QConvState& s) {
  const TX* x = ctx.in(kQcX).data<TX>();
  char* y = static_cast<char*>(ctx.out(0).raw());
  const size_t y_size = dtype_size(s.requantize.dtype);
  const int64_t mg = g.out_channels_per_group(), cg = g.in_channels_per_group();
  const int64_t pairs = qgemm_pairs(cg * g.kernel_volume()), pixels = g.out_pixels();
  const int64_t step = qgemm_column_step();
  const int64_t padded_pixels = (pixels + step - 1) / step * step;
  const int64_t width = std::min(padded_pixels, std::max(step, kTileBytes / (pairs * 4) / step * step));
  const int64_t tiles = (pixels + width - 1) / width;
  ctx.pool->parallel_for(g.batch * g.group * tiles, 1, [&](int64_t begin, int64_t end) {
    int32_t* b = reinterpret_cast<int32_t*>(thread_scratch(static_cast<size_t>(pairs * width)));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t tile = task % tiles, grp = task / tiles % g.group, n = task / (tiles * g.group);
      const int64_t n0 = tile * width, cols = std::min(width, pixels - n0);
      gather_patches(g, x + (n * g.in_channels + grp * cg) * g.in_pixels(), s.x_zero, n0, cols, b, width);
      QRequantize rq = s.requantize;
      rq.multiplier = s.multiplier.data() + grp * mg;
      rq.bias = s.bias.empty() ? nullptr : s.bias.data() + grp * mg;
      const int64_t first = (n * g.out_channels + grp * mg) * pixels + n0;
      qgemm(s.packed[static_cast<size_t>(grp)].data(), mg, pairs, b, width, cols, rq, y + first * y_size, pixels);
    }
  });
}

Status qlinear_conv_run(KernelContext& ctx) {
  auto g = geometry(ctx);
  if (!g.ok()) return g.status();
  std::unique_ptr<QConvState> per_run;
  const QConvState* s = static_cast<const QConvState*>(ctx.state);
  if (!s) {
    auto built = build_state(ctx, *g);
    if (!built.ok()) return built.status();
    per_run = std::move(*built);
    s = per_run.get();
  }
  if (ctx.in(kQcX).dtype() == DType::I8) {
    run_typed<int8_t>(ctx, *g, *s);
  } else {
    run_typed<uint8_t>(ctx, *g, *s);
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearConv, mote::cpu::qlinear_conv_run, mote::cpu::qlinear_conv_prepare);
