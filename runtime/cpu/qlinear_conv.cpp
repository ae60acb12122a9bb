// Optimised QLinearConv: per image, group and tile of output pixels, the
// input patches are laid out in the int8 GEMM's format (qgemm.hpp: int16
// pairs less the zero point, or with VNNI bytes as stored; gathered or read
// in place from a shifted copy, qconv_patches.hpp) and multiplied by the
// packed weights; the GEMM requantises as it stores.
// Depthwise convolutions take their own stencil kernel (qdepthwise.hpp).
// Weights, multipliers and bias are prepared once when they are constants.
// ConvInteger runs here too: the GEMM's sums stored as int32, nothing
// requantised (depthwise ones through the GEMM as well), its x zero point
// allowed to come at run time (DynamicQuantizeLinear's).
#include "runtime/ops/qlinear_conv.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/qconv_patches.hpp"
#include "runtime/cpu/qdepthwise.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/qoutput_range.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "runtime/ops/conv_integer.hpp"

namespace mote::cpu {
namespace {

// Bytes of gathered patches per task: a tile stays in L2 while every panel
// of weights passes over it.
constexpr int64_t kTileBytes = 512 * 1024;
// The narrowest tile the threads get their own tiles of: MobileNetV2's
// 28x28 projections were no faster in tiles of 208 columns (their weights'
// panels read again for few columns), its 56x56 ones faster in 784.
constexpr int64_t kMinSplitColumns = 512;
// The narrowest tile a thread takes alone when a layer has fewer tiles than
// threads: ResNet-18's 14x14 layers (196 pixels) split as 112 + 84.
constexpr int64_t kMinOwnColumns = 64;

struct QConvState : KernelState {
  QgemmFormat format = QgemmFormat::kPairs;
  int32_t weight_min = 0, weight_max = 0;    // the weights less their zero points: what chose the format
  std::vector<std::vector<int32_t>> packed;  // per group
  std::vector<float> multiplier;             // x_scale * w_scale[m] / y_scale
  std::vector<int32_t> bias;                 // for x_zero; empty when zero everywhere
  // kQuads: each output channel's weight sum, which a run's other x zero
  // point (ConvInteger's, computed per run) multiplies into the bias.
  std::vector<int64_t> row_sums;
  QRequantize requantize;                    // lo, hi, zero, dtype and the residual's scale and zero
  int32_t x_zero = 0;                        // the one the bias was made for
  // kQuads: B holds x + x_offset as bytes, read as uint8 (x_offset 128 for
  // i8 x, else 0) or, where signed_b (arm64's sdot), as int8 (-128 for u8
  // x, else 0).
  int32_t x_offset = 0;
  bool signed_b = false;
  // Where B's rows come from, for the geometry prepare saw.
  PatchPlan patches;
  // Set instead of the GEMM's state for a depthwise QLinearConv (a
  // ConvInteger's int32 output takes the GEMM).
  std::unique_ptr<QDepthwiseWeights> depthwise;
};

bool is_conv_integer(const KernelContext& ctx) { return ctx.op.type == fb::OpType::ConvInteger; }

// W's input: QLinearConv's 3, ConvInteger's 1. (Neither the bias nor the
// residual exist for ConvInteger, whose inputs end at 3.)
size_t w_input(const KernelContext& ctx) { return is_conv_integer(ctx) ? size_t{kCiW} : size_t{kQcW}; }

// Whether every parameter (all inputs but X and the residual, which are
// activations, and ConvInteger's x zero point, which may be computed per
// run) is known at prepare.
bool constant_inputs(const KernelContext& ctx) {
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (i == kQcResidual || (is_conv_integer(ctx) && i == kCiXZero)) continue;
    if (ctx.has_input(i) && !ctx.in(i).raw()) return false;
  }
  return true;
}

// x's zero point in this run.
int32_t run_x_zero(const KernelContext& ctx) {
  const size_t input = is_conv_integer(ctx) ? size_t{kCiXZero} : size_t{kQcXZero};
  return ctx.has_input(input) ? int8_element(ctx.in(input), 0) : 0;
}

// ConvInteger's parameters as QLinearConv's: unit scales, an int32 output.
QLinearConvParams integer_params(const KernelContext& ctx, int64_t out_channels) {
  const IntegerZeroPoints z = read_integer_zero_points(ctx, out_channels);  // x's 0 where not known yet
  QLinearConvParams p;
  p.x_zero = z.a;
  p.w_zero = z.b;
  p.w_scale.assign(static_cast<size_t>(out_channels), 1.0f);
  p.y_dtype = DType::I32;
  return p;
}

// The output range (qoutput_range.hpp) and the residual's parameters; an
// int32 output (ConvInteger's) has neither.
Status output_range(const KernelContext& ctx, const QLinearConvParams& p, QRequantize& rq) {
  if (p.y_dtype == DType::I32) {
    rq.dtype = DType::I32;
    return {};
  }
  MOTE_RETURN_IF_ERROR(set_output_range(ctx, p.y_dtype, p.y_scale, p.y_zero, rq));
  if (p.residual) {
    // The residual's pointer and dtype are the run's (it is an activation).
    rq.residual_zero = p.r_zero;
    rq.residual_multiplier = p.r_scale / p.y_scale;
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
  auto params = is_conv_integer(ctx) ? Result<QLinearConvParams>(integer_params(ctx, g.out_channels))
                                     : read_qlinear_conv_params(ctx, g.out_channels);
  if (!params.ok()) return params.status();
  const QLinearConvParams& p = *params;
  auto s = std::make_unique<QConvState>();
  MOTE_RETURN_IF_ERROR(output_range(ctx, p, s->requantize));
  s->x_zero = p.x_zero;
  const int64_t mg = g.out_channels_per_group(), depth = g.in_channels_per_group() * g.kernel_volume();
  const Tensor& w = ctx.in(w_input(ctx));
  const int32_t* b = ctx.has_input(kQcBias) ? ctx.in(kQcBias).data<int32_t>() : nullptr;
  const std::vector<int16_t> shifted = shifted_weights(w, p.w_zero, depth);
  if (qdepthwise_applies(g) && p.y_dtype != DType::I32) {
    auto d = std::make_unique<QDepthwiseWeights>();
    d->taps.assign(shifted.begin(), shifted.end());
    for (int64_t m = 0; m < g.out_channels; ++m) {
      d->bias.push_back(b ? b[m] : 0);
      d->multiplier.push_back(p.x_scale * p.w_scale[m] / p.y_scale);
    }
    d->requantize = s->requantize;
    d->x_zero = p.x_zero;
    d->quads = qdepthwise_quads_pack(g.out_channels, g.kernel[1], g.kernel[2], shifted.data());
    qdepthwise_quads_plan_flat(g, d->quads);
    s->depthwise = std::move(d);
    return s;
  }
  const auto [lowest, highest] = std::minmax_element(shifted.begin(), shifted.end());
  s->weight_min = shifted.empty() ? 0 : *lowest;
  s->weight_max = shifted.empty() ? 0 : *highest;
  s->format = qgemm_format(s->weight_min, s->weight_max);
  const bool quads = s->format == QgemmFormat::kQuads;
  s->signed_b = quads && qgemm_quads_signed_b();
  const bool x_signed = ctx.in(kQcX).dtype() == DType::I8;  // x is input 0 of both ops
  s->x_offset = !quads || x_signed == s->signed_b ? 0 : (s->signed_b ? -128 : 128);
  s->patches = plan_patches(g, qgemm_column_step());
  // The group's weights as the format packs them: int8 for kQuads, int16
  // (shifted as it is) for kPairs.
  std::vector<int8_t> rows(quads ? static_cast<size_t>(mg * depth) : 0);
  for (int64_t grp = 0; grp < g.group; ++grp) {
    const int16_t* group_rows = shifted.data() + grp * mg * depth;
    if (quads) {
      std::transform(group_rows, group_rows + mg * depth, rows.begin(),
                     [](int16_t v) { return static_cast<int8_t>(v); });
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
  if (quads) s->row_sums = qgemm_row_sums(shifted.data(), g.out_channels, depth);
  if (b || b_zero) qgemm_rebias(b, s->row_sums, b_zero, g.out_channels, s->bias);
  return s;
}

Result<ConvGeometry> geometry(const KernelContext& ctx) {
  auto g = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(kQcX).shape(), ctx.in(w_input(ctx)).shape());
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
class QConvRun {
 public:
  // `source` is the input, or its shifted copy when the plan says so;
  // `bias` the run's (one per output channel, or null).
  QConvRun(KernelContext& ctx, const ConvGeometry& g, const QConvState& s, const PatchPlan& patches,
           const PatchValues& values, const void* source, const int32_t* bias)
      : g_(g),
        s_(s),
        bias_(bias),
        patches_(patches),
        values_(values),
        source_(source),
        x_dtype_(ctx.in(kQcX).dtype()),
        y_(static_cast<char*>(ctx.out(0).raw())),
        requantize_(with_residual(ctx, s.requantize)),
        y_size_(dtype_size(s.requantize.dtype)),
        mg_(g.out_channels_per_group()),
        cg_(g.in_channels_per_group()),
        groups_(qgemm_groups(s.format, cg_ * g.kernel_volume())),
        pixels_(g.out_pixels()),
        step_(qgemm_column_step()) {
    const int64_t padded_pixels = (pixels_ + step_ - 1) / step_ * step_;
    width_ = std::min(padded_pixels, std::max(step_, kTileBytes / (groups_ * 4) / step_ * step_));
    // A layer of few output channels (MobileNetV2's projections to 24 or 32)
    // with too few tiles for the threads: narrower tiles, two of its own
    // for each thread, down to kMinSplitColumns. Shared tiles (run_gemm)
    // would split its few row panels unevenly: 3 panels over 2 threads, and
    // those layers ran 1.2-1.3x faster at 2 threads than at 1. With more
    // panels the shared tile is the better one (ResNet-18's 28x28 layers
    // were slower split into narrower tiles: their weights read per tile).
    const int64_t threads = ctx.pool->size(), images = g.batch * g.group;
    const int64_t wanted = 2 * threads;
    if (threads > 1 && panels() < 4 * threads && images * ((pixels_ + width_ - 1) / width_) < wanted) {
      const int64_t per_image = (wanted + images - 1) / images;
      const int64_t narrow = ((pixels_ + per_image - 1) / per_image + step_ - 1) / step_ * step_;
      if (narrow >= kMinSplitColumns) width_ = std::min(width_, narrow);
    }
    // Fewer tiles than threads (14x14 images, or 28x28 ones whose deep
    // patches fill a tile with 448 pixels): one tile per thread where each
    // keeps kMinOwnColumns, rather than tiles that all threads gather and
    // multiply together (two fork-joins per tile, and B read across the
    // cores).
    const int64_t half_panel = std::max<int64_t>(1, step_ / 2);
    tiles_ = (pixels_ + width_ - 1) / width_;
    if (threads > 1 && images * tiles_ < threads) {
      const int64_t per_image = (threads + images - 1) / images;
      const int64_t narrow = ((pixels_ + per_image - 1) / per_image + half_panel - 1) / half_panel * half_panel;
      if (narrow >= kMinOwnColumns) width_ = std::min(width_, narrow);
      tiles_ = (pixels_ + width_ - 1) / width_;
    }
    // Tiles of one width, in a count the threads share evenly, each task
    // taking whole tiles: ResNet-18's 56x56 layers had 3 tiles of 896
    // pixels and one of 448, so at 2 threads one thread computed 1,792
    // columns and the other 1,344. Widths are whole half panels (the
    // GEMM's one-vector tile), not whole panels: its 28x28 layers split
    // 784 pixels as 400 + 384, where panels gave 416 + 368 (13 against 11.5
    // panels' work). One such tile per thread, rather than a shared one,
    // took those layers from 0.339 to 0.295 ms at 2 threads (0.55 at 1),
    // the int8 ResNet-18 5.39 -> 5.21 ms (mote-bench, eight alternating
    // rounds, medians).
    if (threads > 1 && images * tiles_ >= threads) {
      // The fewest tiles per image from tiles_ on whose count over all
      // images the threads share evenly (images alone may do: 2 images of
      // one tile each at 2 threads stay whole).
      int64_t even = tiles_;
      while (images * even % threads != 0) ++even;
      width_ = ((pixels_ + even - 1) / even + half_panel - 1) / half_panel * half_panel;
      tiles_ = (pixels_ + width_ - 1) / width_;
    }
    own_tiles_ = threads == 1 || images * tiles_ >= threads;
  }

  int64_t tiles() const { return tiles_; }
  int64_t panels() const { return (mg_ + kQgemmPanelRows - 1) / kQgemmPanelRows; }
  // Whether each task takes whole tiles of its own (else all threads share
  // each tile, run_gemm).
  bool own_tiles() const { return own_tiles_; }
  // Floats of B for one tile, then of the rows being interleaved (whole
  // panels: a tile may end in half of one).
  size_t b_floats() const { return static_cast<size_t>(groups_ * padded_width()); }
  size_t rows_floats() const { return static_cast<size_t>(padded_width()); }
  int64_t padded_width() const { return (width_ + step_ - 1) / step_ * step_; }

  // Depth groups [k0, k1) of tile `tile` of image n, group grp, into b;
  // `rows` is rows_floats() of scratch.
  void gather(int64_t n, int64_t grp, int64_t tile, int64_t k0, int64_t k1, float* rows, int32_t* b) const {
    const int64_t n0 = tile * width_, cols = std::min(width_, pixels_ - n0);
    gather_b(patches_, values_, source_, x_dtype_, n * g_.in_channels + grp * cg_, n0, cols, k0, k1, groups_, rows,
             b);
  }

  // Output channels [row0, row0 + rows) of the group over the tile in b.
  void multiply(int64_t n, int64_t grp, int64_t tile, int64_t row0, int64_t rows, const int32_t* b) const {
    const int64_t n0 = tile * width_, cols = std::min(width_, pixels_ - n0);
    const int64_t m0 = grp * mg_ + row0;  // first output channel of this part
    const int64_t first = (n * g_.out_channels + m0) * pixels_ + n0;
    QRequantize rq = residual_at(requantize_, first);
    rq.multiplier = s_.multiplier.data() + m0;
    rq.bias = bias_ ? bias_ + m0 : nullptr;
    const int32_t* a = s_.packed[static_cast<size_t>(grp)].data() + row0 * groups_;
    qgemm(s_.format, a, rows, groups_, b, cols, rq, y_ + first * y_size_, pixels_);
  }

  int64_t groups() const { return groups_; }

 private:
  const ConvGeometry& g_;
  const QConvState& s_;
  const int32_t* bias_;
  const PatchPlan& patches_;
  PatchValues values_;
  const void* source_;
  DType x_dtype_;
  char* y_;
  QRequantize requantize_;  // the state's, with this run's residual
  size_t y_size_;
  int64_t mg_, cg_, groups_, pixels_, step_, width_ = 0, tiles_ = 0;
  bool own_tiles_ = true;
};

void run_gemm(KernelContext& ctx, const ConvGeometry& g, const QConvState& s) {
  if (ctx.out(0).numel() == 0) return;  // an empty batch: no tiles to split
  // The plan from prepare, unless the input's size changed since.
  PatchPlan local;
  const bool prepared = plan_serves(s.patches, g, qgemm_column_step());
  if (!prepared) local = plan_patches(g, qgemm_column_step());
  const PatchPlan& patches = prepared ? s.patches : local;
  // kQuads multiplies the bytes x + x_offset; kPairs x - x_zero as int16.
  // A zero point other than the one the bias was made for (ConvInteger's,
  // computed per run): kQuads takes the difference times each channel's
  // weight sum off the bias, kPairs subtracts it as it lays x out.
  const int32_t x_zero = run_x_zero(ctx);
  PatchValues values{s.format, -x_zero, 0};
  if (s.format == QgemmFormat::kQuads) values = {s.format, s.x_offset, x_zero + s.x_offset};
  const int32_t* bias = s.bias.empty() ? nullptr : s.bias.data();
  thread_local std::vector<int32_t> run_bias;
  if (x_zero != s.x_zero && s.format == QgemmFormat::kQuads) {
    bias = qgemm_rebias(bias, s.row_sums, int64_t{x_zero} - s.x_zero, g.out_channels, run_bias);
  }
  const void* source = ctx.in(kQcX).raw();
  if (patches.shifted) {
    // The calling thread's, kept between runs like thread_scratch (it keeps
    // the largest input seen; the tasks take their own scratch from
    // thread_scratch and only read this one, while this thread waits for
    // them in parallel_for).
    thread_local std::vector<uint8_t> copy;
    copy.resize(shifted_copy_bytes(patches, values));
    copy_shifted_planes(patches, values, source, ctx.in(kQcX).dtype(), copy.data(), *ctx.pool);
    source = copy.data();
  }
  const QConvRun run(ctx, g, s, patches, values, source, bias);
  const int64_t threads = ctx.pool->size(), images = g.batch * g.group, tiles = run.tiles();
  if (run.own_tiles()) {
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
  if (s && !s->depthwise && !qgemm_packing_current(s->format, s->weight_min, s->weight_max, s->signed_b)) {
    s = nullptr;  // packed at prepare for another instruction set
  }
  if (!s) {
    auto built = build_state(ctx, *g);
    if (!built.ok()) return built.status();
    per_run = std::move(*built);
    s = per_run.get();
  }
  if (s->depthwise) {
    qdepthwise_run(ctx, *g, *s->depthwise, with_residual(ctx, s->depthwise->requantize));
  } else {
    run_gemm(ctx, *g, *s);
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearConv, mote::cpu::qlinear_conv_run, mote::cpu::qlinear_conv_prepare);
MOTE_CPU_KERNEL(ConvInteger, mote::cpu::qlinear_conv_run, mote::cpu::qlinear_conv_prepare);
