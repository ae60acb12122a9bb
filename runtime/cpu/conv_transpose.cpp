// Optimised ConvTranspose: per (image, group), a GEMM W_g^T [M_g * kvol, C_g]
// times the input [C_g, pixels] gives every input pixel's contribution to
// every kernel tap; col2im then adds those into the output planes, which start
// out holding the bias. The input pixels are cut into tiles so the column
// buffer stays in cache. Constant weights are packed once at prepare().
#include <algorithm>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/conv_im2col.hpp"
#include "runtime/cpu/fused_epilogue.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {
namespace {

// Target size of one column tile (see conv.cpp).
constexpr int64_t kColumnTileBytes = 512 * 1024;
constexpr int64_t kMinTilePixels = 64;

struct ConvTransposeState : KernelState {
  const void* weights = nullptr;     // the constant W the packs were made from
  std::vector<PackedMatrix> packed;  // per group: W_g^T as [M_g * kvol, C_g]
};

// W is [C, M_g, k...]: group g's rows form a [C_g, M_g * kvol] matrix.
std::vector<PackedMatrix> pack_weights(const ConvGeometry& g, const float* w) {
  const int64_t cg = g.in_channels_per_group();
  const int64_t taps = g.out_channels_per_group() * g.kernel_volume();
  std::vector<PackedMatrix> packed;
  for (int64_t grp = 0; grp < g.group; ++grp) packed.push_back(pack_a(true, taps, cg, w + grp * cg * taps, taps));
  return packed;
}

Status conv_transpose_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  if (!ctx.in(1).raw()) return {};  // W is computed at run time: pack per run
  auto g = resolve_conv_transpose(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.in(1).shape());
  if (!g.ok()) return ctx.fail(g.status().message());
  auto s = std::make_unique<ConvTransposeState>();
  s->weights = ctx.in(1).raw();
  s->packed = pack_weights(*g, ctx.in(1).data<float>());
  state = std::move(s);
  return {};
}

void run_packed(KernelContext& ctx, const ConvGeometry& g, const std::vector<PackedMatrix>& packed) {
  const float* x = ctx.in(0).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  float* y = ctx.out(0).data<float>();
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t kvol = g.kernel_volume(), taps = mg * kvol;
  const int64_t in_plane = g.in_pixels(), out_plane = g.out_pixels();
  ThreadPool* pool = ctx.pool;

  // The output starts as the bias; col2im adds into it.
  pool->parallel_for(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      float value = bias ? bias[plane % g.out_channels] : 0.0f;
      std::fill(y + plane * out_plane, y + (plane + 1) * out_plane, value);
    }
  });

  const int64_t tile = std::min(in_plane, std::max(kMinTilePixels, kColumnTileBytes / (taps * int64_t{sizeof(float)})));
  // One (image, group) adds into its own output channels only: with enough
  // of them, each is a task running its tiles one after the other; otherwise
  // the tiles run in turn with the GEMM and col2im spread over the pool.
  auto run_group = [&](int64_t item, ThreadPool* inner) {
    const int64_t grp = item % g.group, n = item / g.group;
    const float* xg = x + (n * g.in_channels + grp * cg) * in_plane;
    float* yg = y + (n * g.out_channels + grp * mg) * out_plane;
    for (int64_t p0 = 0; p0 < in_plane; p0 += tile) {
      const int64_t p1 = std::min(in_plane, p0 + tile), width = p1 - p0;
      float* col = thread_scratch(static_cast<size_t>(taps * width));
      sgemm(packed[static_cast<size_t>(grp)], false, width, 1.0f, xg + p0, in_plane, 0.0f, col, width, {}, inner);
      if (inner) {
        inner->parallel_for(mg, 1, [&](int64_t m0, int64_t m1) {
          col2im_add(g, col, width, p0, p1, m0 * kvol, m1 * kvol, yg);
        });
      } else {
        col2im_add(g, col, width, p0, p1, 0, taps, yg);
      }
    }
  };
  const int64_t items = g.batch * g.group;
  if (items >= pool->size()) {
    pool->run(items, [&](int64_t item) { run_group(item, nullptr); });
  } else {
    for (int64_t item = 0; item < items; ++item) run_group(item, pool);
  }

  const fb::FusedActivationT* act = ctx.op.fused.get();
  if (act && act->kind != fb::ActivationKind::None) {
    pool->parallel_for(ctx.out(0).numel(), 1 << 14, [&](int64_t begin, int64_t end) {
      apply_fused_activation(act, y + begin, end - begin);
    });
  }
}

Status conv_transpose_run(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(fused::check_f32_inputs_and_activation(ctx));
  auto resolved = resolve_conv_transpose(attrs<fb::ConvAttrsT>(ctx.op), ctx.in(0).shape(), ctx.in(1).shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  if (ctx.out(0).numel() == 0) return {};
  const int64_t taps = g.out_channels_per_group() * g.kernel_volume();
  const auto* state = static_cast<const ConvTransposeState*>(ctx.state);
  if (state && state->weights == ctx.in(1).raw() && static_cast<int64_t>(state->packed.size()) == g.group &&
      state->packed[0].rows() == taps && state->packed[0].cols() == g.in_channels_per_group()) {
    run_packed(ctx, g, state->packed);
  } else {
    run_packed(ctx, g, pack_weights(g, ctx.in(1).data<float>()));
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(ConvTranspose, mote::cpu::conv_transpose_run, mote::cpu::conv_transpose_prepare);
