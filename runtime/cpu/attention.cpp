// Optimised Attention for f32 without a KV cache. Per (batch, head) and block
// of query rows: the scores scale * Q K^T are one sgemm (K read transposed
// through its leading dimension, nothing copied), the mask and causal rule
// are added, each row goes through a SIMD softmax, and P V is a second
// sgemm written straight into Y's rows. The blocks are spread over the pool
// and a block's scores stay in the thread's scratch, so the [q_len, kv_len]
// score matrices of the unfused MatMul / Softmax / MatMul never reach memory.
//
// Other forms (a past key/value cache, softcap, nonpad_kv_seqlen, the
// present_* or qk_matmul outputs, f64) run the reference kernel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/softmax_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/thread_scratch.hpp"
#include "runtime/ops/attention.hpp"

namespace mote::cpu {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Query rows per task: up to a whole head of a short sequence (V is then
// packed once per head; measured 9 % faster than 64 rows on 4 heads of 128 x
// 32 at 1 thread), fewer when a block's scores (rows x kv_len floats) would
// outgrow a 256 KiB share of L2, or when there would be fewer tasks than
// threads.
constexpr int64_t kMaxRows = 128, kMinRows = 16;
constexpr int64_t kScoreFloats = 64 * 1024;

int64_t rows_per_block(const AttentionGeometry& g, int threads) {
  int64_t rows = std::clamp(kScoreFloats / std::max<int64_t>(g.kv_len, 1), kMinRows, kMaxRows);
  rows = std::min(rows, std::max<int64_t>(g.q_len, 1));
  const int64_t heads = g.batch * g.q_heads;
  while (rows > kMinRows && heads * ((g.q_len + rows - 1) / rows) < threads) rows = (rows + 1) / 2;
  return rows;
}

bool has_fast_path(const KernelContext& ctx, const fb::AttentionAttrsT& a) {
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    if (ctx.outputs[i] != nullptr) return false;
  }
  return ctx.in(0).dtype() == DType::F32 && !ctx.has_input(4) && !ctx.has_input(5) && !ctx.has_input(6) &&
         a.softcap == 0.0f;
}

// Where head h's rows of a Q, K, V or Y tensor start, and the distance
// between them: [batch, heads, len, size] or [batch, len, heads * size].
struct HeadLayout {
  bool three_d;
  int64_t heads, len, size;

  int64_t offset(int64_t b, int64_t h) const {
    return three_d ? b * len * heads * size + h * size : (b * heads + h) * len * size;
  }
  int64_t row_stride() const { return three_d ? heads * size : size; }
};

// The additive mask, broadcast to [batch, q_heads, q_len, total_len]: a bool
// mask adds 0 where true and -inf where false; keys past the mask's own last
// dimension count as masked.
struct MaskView {
  const Tensor* mask = nullptr;
  std::vector<int64_t> strides;

  void add_row(int64_t b, int64_t h, int64_t i, float* row, int64_t total) const {
    if (!mask) return;
    const int64_t width = std::min(total, mask->shape().back());
    const int64_t at = b * strides[0] + h * strides[1] + i * strides[2];
    const int64_t step = strides[3];
    if (mask->dtype() == DType::Bool) {
      const bool* m = mask->data<bool>() + at;
      for (int64_t j = 0; j < width; ++j) row[j] = m[j * step] ? row[j] : kNegInf;
    } else {
      const float* m = mask->data<float>() + at;
      for (int64_t j = 0; j < width; ++j) row[j] += m[j * step];
    }
    std::fill(row + width, row + total, kNegInf);
  }
};

// Softmax of one row in place; a row masked everywhere attends to nothing.
void softmax_row(float* row, int64_t n) {
  const float max = simd::reduce_row(simd::RowOp::kMax, row, n);
  if (max == kNegInf) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  const float sum = simd::exp_shifted_sum(row, n, max, row);
  simd::scale_shift_row(row, n, 1.0f / sum, 0.0f, row);
}

Status attention(KernelContext& ctx) {
  const auto& a = attrs<fb::AttentionAttrsT>(ctx.op);
  if (!has_fast_path(ctx, a)) return find_reference_kernel(fb::OpType::Attention)->run(ctx);
  auto geometry = attention_geometry(a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape(), nullptr, nullptr);
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const AttentionGeometry& g = *geometry;
  if (ctx.out(0).numel() == 0) return {};

  const HeadLayout q{g.three_d, g.q_heads, g.q_len, g.head_size};
  const HeadLayout k{g.three_d, g.kv_heads, g.kv_len, g.head_size};
  const HeadLayout v{g.three_d, g.kv_heads, g.kv_len, g.v_head_size};
  const HeadLayout y{g.three_d, g.q_heads, g.q_len, g.v_head_size};
  MaskView mask;
  if (ctx.has_input(3)) {
    mask.mask = &ctx.in(3);
    Shape target = g.scores_shape();
    target.back() = mask.mask->shape().back();
    mask.strides = broadcast_strides(mask.mask->shape(), target);
  }
  const float scale = a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(g.head_size));
  const int64_t group = g.q_heads / g.kv_heads;
  const int64_t block_rows = rows_per_block(g, ctx.pool->size());
  const int64_t blocks = (g.q_len + block_rows - 1) / block_rows;
  const int64_t kv = g.kv_len;
  const float* qd = ctx.in(0).data<float>();
  const float* kd = ctx.in(1).data<float>();
  const float* vd = ctx.in(2).data<float>();
  float* yd = ctx.out(0).data<float>();

  ctx.pool->run(g.batch * g.q_heads * blocks, [&](int64_t task) {
    const int64_t bh = task / blocks;
    const int64_t b = bh / g.q_heads, h = bh % g.q_heads, kvh = h / group;
    const int64_t i0 = task % blocks * block_rows;
    const int64_t rows = std::min(block_rows, g.q_len - i0);
    float* scores = thread_scratch(static_cast<size_t>(rows * kv));
    sgemm(false, true, rows, kv, g.head_size, scale, qd + q.offset(b, h) + i0 * q.row_stride(), q.row_stride(),
          kd + k.offset(b, kvh), k.row_stride(), 0.0f, scores, kv);
    for (int64_t r = 0; r < rows; ++r) {
      float* row = scores + r * kv;
      const int64_t i = i0 + r;
      mask.add_row(b, h, i, row, kv);
      if (a.is_causal && i + 1 < kv) std::fill(row + i + 1, row + kv, kNegInf);
      softmax_row(row, kv);
    }
    sgemm(false, false, rows, g.v_head_size, kv, 1.0f, scores, kv, vd + v.offset(b, kvh), v.row_stride(), 0.0f,
          yd + y.offset(b, h) + i0 * y.row_stride(), y.row_stride());
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Attention, mote::cpu::attention);
