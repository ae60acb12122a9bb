// ConvGradWeight on the CPU as GEMMs: for each group, dW_g [M_g, C_g * kvol]
// is the sum over images n and pixel tiles of dY_{n,g} [M_g, tile] times the
// transposed im2col columns of X_{n,g} [C_g * kvol, tile], the same column
// layout the forward Conv uses (conv_im2col.hpp). Each thread accumulates the
// images of its share into a private dW, and the partial sums are added at
// the end, so threads never write the same memory.
#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/conv_im2col.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/conv_geometry.hpp"

namespace mote::cpu {
namespace {

// A column tile of at most this many floats stays in L2 between im2col
// writing it and the GEMM packing it.
constexpr int64_t kColumnTileFloats = 128 * 1024;

// Adds the weight gradient of images [n0, n1) into dw (zeroed by the caller).
void accumulate_images(const ConvGeometry& g, const float* x, const float* dy, int64_t n0, int64_t n1, float* dw) {
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t rows = cg * g.kernel_volume();
  const int64_t pixels = g.out_pixels();
  const int64_t tile = std::clamp<int64_t>(kColumnTileFloats / std::max<int64_t>(rows, 1), 16, pixels);
  float* col = thread_scratch(static_cast<size_t>(rows * tile));
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const float* xg = x + (n * g.in_channels + grp * cg) * g.in_pixels();
      const float* dyg = dy + (n * g.out_channels + grp * mg) * pixels;
      float* dwg = dw + grp * mg * rows;
      for (int64_t p0 = 0; p0 < pixels; p0 += tile) {
        const int64_t p1 = std::min(p0 + tile, pixels);
        im2col(g, xg, p0, p1, 0, rows, col, p1 - p0);
        // dwg [mg, rows] += dyg[:, p0:p1] [mg, p1-p0] x col^T [p1-p0, rows]
        sgemm(false, true, mg, rows, p1 - p0, 1.0f, dyg + p0, pixels, col, p1 - p0, 1.0f, dwg, rows);
      }
    }
  }
}

Status conv_grad_weight(KernelContext& ctx) {
  const Tensor& xt = ctx.in(0);
  const Tensor& dyt = ctx.in(1);
  Tensor& dwt = ctx.out(0);
  if (xt.dtype() != DType::F32 || dyt.dtype() != DType::F32) {
    return ctx.fail(std::string("the CPU kernel computes in f32, got ") + dtype_name(xt.dtype()));
  }
  auto resolved = resolve_conv(attrs<fb::ConvAttrsT>(ctx.op), xt.shape(), dwt.shape());
  if (!resolved.ok()) return ctx.fail(resolved.status().message());
  const ConvGeometry& g = *resolved;
  const float* x = xt.data<float>();
  const float* dy = dyt.data<float>();
  float* dw = dwt.data<float>();
  const auto weights = static_cast<size_t>(dwt.numel());
  std::memset(dw, 0, weights * sizeof(float));
  const int64_t threads = std::min<int64_t>(ctx.pool ? ctx.pool->size() : 1, g.batch);
  if (threads <= 1) {
    accumulate_images(g, x, dy, 0, g.batch, dw);
    return {};
  }
  // Thread 0 writes dw itself; the others their own partial sums.
  std::vector<std::vector<float>> partial(static_cast<size_t>(threads - 1), std::vector<float>(weights, 0.0f));
  ctx.pool->run(threads, [&](int64_t t) {
    const int64_t n0 = g.batch * t / threads, n1 = g.batch * (t + 1) / threads;
    accumulate_images(g, x, dy, n0, n1, t == 0 ? dw : partial[static_cast<size_t>(t - 1)].data());
  });
  for (const auto& p : partial) {
    for (size_t i = 0; i < weights; ++i) dw[i] += p[i];
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(ConvGradWeight, mote::cpu::conv_grad_weight);
