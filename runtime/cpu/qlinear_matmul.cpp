// Optimised QLinearMatMul and MatMulInteger on the int8 GEMM (qgemm.hpp),
// the second with an int32 output, nothing requantised: B, the weights of a
// linear layer in the usual case, is packed once as the GEMM's A (one row
// per column of B, less its zero point), so B's per-column scales are the
// GEMM's per-row multipliers; each matrix of A is laid out as the GEMM's B
// (a column per row of A) and the product, computed transposed, is
// transposed into Y. B's packing is prepared once when B and every
// parameter are constants, MatMulInteger's A zero point excepted (the bias
// follows one computed per run), else built per run (and per matrix of a
// batched B).
#include "runtime/ops/qlinear_matmul.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/qoutput_range.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/transpose_simd.hpp"
#include "runtime/ops/matmul_integer.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::cpu {
namespace {

// Bytes of the GEMM's B per task: a tile of columns stays in L2 while every
// panel of the weights passes over it (as QLinearConv's tiles).
constexpr int64_t kTileBytes = 512 * 1024;

// One matrix of B, packed.
struct PackedWeights {
  std::vector<int32_t> packed;
  std::vector<int32_t> bias;  // per column of B, for the state's a_zero; empty when zero everywhere
  // kQuads: each column's weight sum, which a run's other A zero point
  // (DynamicQuantizeLinear's, computed per run) multiplies into the bias.
  std::vector<int64_t> row_sums;
};

struct QMatMulState : KernelState {
  QgemmFormat format = QgemmFormat::kPairs;
  int32_t weight_min = 0, weight_max = 0;  // B less its zero points: what chose the format
  bool signed_b = false;
  // kQuads: the GEMM multiplies the bytes a + a_offset, read as uint8 (128
  // for i8 a, else 0) or, where signed_b (arm64's sdot), as int8 (-128 for
  // u8 a, else 0); kPairs: a - a_zero as int16. a_zero is the one the bias
  // was made for (0 where A's zero point is computed at run time).
  int32_t a_zero = 0, a_offset = 0;
  bool a_signed = false;                // A is i8
  std::vector<float> multiplier;        // a_scale * b_scale[n] / y_scale
  QRequantize requantize;               // lo, hi, zero and dtype
  std::vector<PackedWeights> matrices;  // one per matrix of B (one unless B is batched)
};

// Whether prepare can pack B: B and everything but A constant, except that
// MatMulInteger's A zero point may come at run time (the bias follows it
// per run: PackedWeights::row_sums).
bool packable_at_prepare(const KernelContext& ctx) {
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.op.type == fb::OpType::MatMulInteger && i == kMiAZero) continue;
    if (ctx.has_input(i) && !ctx.in(i).raw()) return false;
  }
  return true;
}

// A's zero point in this run.
int32_t run_a_zero(const KernelContext& ctx) {
  const size_t input = ctx.op.type == fb::OpType::MatMulInteger ? size_t{kMiAZero} : size_t{kQmAZero};
  return ctx.has_input(input) ? int8_element(ctx.in(input), 0) : 0;
}

// B's matrix `index` ([k][n]) less its zero points, transposed: row n of
// `k` values (int16 holds any difference of two 8-bit values).
template <class T>
void shifted_transposed(const T* b, const std::vector<int32_t>& zero, int64_t k, int64_t n, int16_t* out) {
  for (int64_t col = 0; col < n; ++col) {
    const int32_t z = zero[static_cast<size_t>(col)];
    for (int64_t d = 0; d < k; ++d) *out++ = static_cast<int16_t>(int32_t{b[d * n + col]} - z);
  }
}

// What the two ops' parameters come to: A's zero point, B's per column,
// the requantisation (or an int32 output), a bias per column or null.
struct ProductParams {
  int32_t a_zero = 0;
  std::vector<int32_t> b_zero;
  std::vector<float> multiplier;
  QRequantize requantize;
  const int32_t* bias = nullptr;
};

Result<ProductParams> qlinear_params(const KernelContext& ctx, const MatMulShape& s) {
  auto read = read_qlinear_matmul_params(ctx, s.n);
  if (!read.ok()) return ctx.fail(read.status().message());
  const QLinearMatMulParams& p = *read;
  ProductParams pp;
  MOTE_RETURN_IF_ERROR(set_output_range(ctx, p.y_dtype, p.y_scale, p.y_zero, pp.requantize));
  for (int64_t col = 0; col < s.n; ++col) {
    pp.multiplier.push_back(p.a_scale * p.b_scale[static_cast<size_t>(col)] / p.y_scale);
  }
  pp.a_zero = p.a_zero;
  pp.b_zero = p.b_zero;
  pp.bias = ctx.has_input(kQmBias) ? ctx.in(kQmBias).data<int32_t>() : nullptr;
  return pp;
}

// MatMulInteger's: the exact sums as int32 (the multipliers are read, and
// unused).
ProductParams integer_params(const KernelContext& ctx, const MatMulShape& s) {
  const IntegerZeroPoints z = read_integer_zero_points(ctx, s.n);  // A's 0 where not known yet
  ProductParams pp;
  pp.a_zero = z.a;
  pp.b_zero = z.b;
  pp.multiplier.assign(static_cast<size_t>(s.n), 1.0f);
  pp.requantize.dtype = DType::I32;
  return pp;
}

// B (input `b_input`: QLinearMatMul's 3, MatMulInteger's 1) packed with
// the parameters.
std::unique_ptr<QMatMulState> build_state(const KernelContext& ctx, const MatMulShape& s, const ProductParams& pp,
                                          size_t b_input) {
  auto st = std::make_unique<QMatMulState>();
  st->requantize = pp.requantize;
  st->multiplier = pp.multiplier;
  const ProductParams& p = pp;
  const Tensor& b = ctx.in(b_input);
  const int64_t matrices = shape_numel(s.b_batch), per_matrix = s.k * s.n;
  std::vector<int16_t> shifted(static_cast<size_t>(matrices * per_matrix));
  for (int64_t i = 0; i < matrices; ++i) {
    int16_t* out = shifted.data() + i * per_matrix;
    if (b.dtype() == DType::I8) {
      shifted_transposed(b.data<int8_t>() + i * per_matrix, p.b_zero, s.k, s.n, out);
    } else {
      shifted_transposed(b.data<uint8_t>() + i * per_matrix, p.b_zero, s.k, s.n, out);
    }
  }
  const auto [lowest, highest] = std::minmax_element(shifted.begin(), shifted.end());
  st->weight_min = shifted.empty() ? 0 : *lowest;
  st->weight_max = shifted.empty() ? 0 : *highest;
  st->format = qgemm_format(st->weight_min, st->weight_max);
  const bool quads = st->format == QgemmFormat::kQuads;
  st->signed_b = quads && qgemm_quads_signed_b();
  st->a_signed = ctx.in(0).dtype() == DType::I8;  // A is input 0 of both ops
  st->a_zero = p.a_zero;
  st->a_offset = !quads || st->a_signed == st->signed_b ? 0 : (st->signed_b ? -128 : 128);
  // kQuads multiplies a + a_offset, not a - a_zero: the difference, (a_zero
  // + a_offset) times the row's weight sum, comes off the bias.
  const int64_t b_zero = quads ? int64_t{p.a_zero} + st->a_offset : 0;
  const int32_t* bias = pp.bias;
  std::vector<int8_t> bytes(quads ? static_cast<size_t>(per_matrix) : 0);
  for (int64_t i = 0; i < matrices; ++i) {
    const int16_t* rows = shifted.data() + i * per_matrix;
    PackedWeights w;
    if (quads) {
      std::transform(rows, rows + per_matrix, bytes.begin(), [](int16_t v) { return static_cast<int8_t>(v); });
      w.packed = qgemm_pack_a(st->format, s.n, s.k, bytes.data());
    } else {
      w.packed = qgemm_pack_a(st->format, s.n, s.k, rows);
    }
    if (quads) w.row_sums = qgemm_row_sums(rows, s.n, s.k);
    if (bias || b_zero) qgemm_rebias(bias, w.row_sums, b_zero, s.n, w.bias);
    st->matrices.push_back(std::move(w));
  }
  return st;
}

Result<MatMulShape> matmul_shape(const KernelContext& ctx, size_t b_input) {
  auto s = resolve_matmul(ctx.in(0).shape(), ctx.in(b_input).shape());
  if (!s.ok()) return ctx.fail(s.status().message());
  return s;
}

// The state for this op's B and parameters (prepare's, or per run).
Result<std::unique_ptr<QMatMulState>> build_for_op(const KernelContext& ctx, const MatMulShape& s) {
  if (ctx.op.type == fb::OpType::MatMulInteger) return build_state(ctx, s, integer_params(ctx, s), kMiB);
  auto pp = qlinear_params(ctx, s);
  if (!pp.ok()) return pp.status();
  return build_state(ctx, s, *pp, kQmB);
}

size_t b_input(const KernelContext& ctx) {
  return ctx.op.type == fb::OpType::MatMulInteger ? size_t{kMiB} : size_t{kQmB};
}

Status qmatmul_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  if (!packable_at_prepare(ctx)) return {};  // B or a parameter computed at run time: built per run
  auto s = matmul_shape(ctx, b_input(ctx));
  if (!s.ok()) return s.status();
  auto built = build_for_op(ctx, *s);
  if (!built.ok()) return built.status();
  state = std::move(*built);
  return {};
}

// Lays the m rows of one matrix of A ([m][k] bytes) out as the GEMM's B:
// column r is row r, depth groups of `group` values, panels of `step`
// columns (qgemm.hpp). kQuads: bytes a + offset (a byte's top bit flipped
// for an offset of +-128; any value past k, where the packed weights are
// 0); kPairs: int16 a - zero. Columns of the last panel past m keep what
// the buffer held (computed, never stored; a vector's elements are always
// initialised): writing them cost a row of one as much as its product.
void layout_columns(const QMatMulState& st, int32_t a_zero, const uint8_t* a, int64_t m, int64_t k, int64_t groups,
                    int64_t step, int32_t* out) {
  const uint32_t flip = st.a_offset != 0 ? 0x80808080u : 0u;
  if (st.format == QgemmFormat::kQuads && k % 4 == 0) {
    // Row r's words are its groups: a transpose of words, panel by panel.
    for (int64_t r0 = 0; r0 < m; r0 += step) {
      const int64_t rows = std::min(step, m - r0);
      int32_t* panel = out + r0 * groups;
      simd::transpose_4byte(a + r0 * k, groups, rows, groups, panel, step);
      if (!flip) continue;
      for (int64_t g = 0; g < groups; ++g) {
        for (int64_t c = 0; c < rows; ++c) panel[g * step + c] = static_cast<int32_t>(panel[g * step + c] ^ flip);
      }
    }
    return;
  }
  for (int64_t r = 0; r < m; ++r) {
    const uint8_t* row = a + r * k;
    for (int64_t g = 0; g < groups; ++g) {
      uint32_t word = 0;
      if (st.format == QgemmFormat::kQuads) {
        for (int64_t j = 0; j < 4 && 4 * g + j < k; ++j) word |= uint32_t{row[4 * g + j]} << (8 * j);
        word ^= flip;
      } else {
        for (int64_t j = 0; j < 2 && 2 * g + j < k; ++j) {
          const int32_t v =
              (st.a_signed ? int32_t{static_cast<int8_t>(row[2 * g + j])} : int32_t{row[2 * g + j]}) - a_zero;
          word |= uint32_t{static_cast<uint16_t>(v)} << (16 * j);
        }
      }
      out[qgemm_b_index(r, g, groups, step)] = static_cast<int32_t>(word);
    }
  }
}

// y[c * rows + r] = src[r * cols + c]: the GEMM's transposed product (one
// row per column of B) into Y's rows, in blocks that stay in L1.
template <class T>
void transpose_product(const T* src, int64_t rows, int64_t cols, int64_t c0, int64_t c1, T* y) {
  constexpr int64_t kBlock = 64;
  for (int64_t cb = c0; cb < c1; cb += kBlock) {
    for (int64_t rb = 0; rb < rows; rb += kBlock) {
      const int64_t c_end = std::min(c1, cb + kBlock), r_end = std::min(rows, rb + kBlock);
      for (int64_t c = cb; c < c_end; ++c) {
        for (int64_t r = rb; r < r_end; ++r) y[c * rows + r] = src[r * cols + c];
      }
    }
  }
}

// One matrix product: A's matrix `a` ([m][k], zero point a_zero) by packed
// weights `w` with `bias` (per column, or null), into y ([m][n] of T: the
// output's type).
template <class T>
void multiply(KernelContext& ctx, const QMatMulState& st, const MatMulShape& s, const PackedWeights& w,
              int32_t a_zero, const int32_t* bias, const uint8_t* a, T* y) {
  const int64_t step = qgemm_column_step(), groups = qgemm_groups(st.format, s.k);
  const int64_t padded = (s.m + step - 1) / step * step;
  // The calling thread's buffers, kept between runs; the tasks reach them
  // through these pointers (a thread_local named in a task would be the
  // worker's own), only reading the columns and each writing its own part
  // of the product.
  thread_local std::vector<int32_t> column_buffer;
  thread_local std::vector<T> product_buffer;
  column_buffer.resize(static_cast<size_t>(groups * padded));
  const int32_t* columns = column_buffer.data();
  layout_columns(st, a_zero, a, s.m, s.k, groups, step, column_buffer.data());
  // A product of one row is its own transpose.
  T* yt = y;
  if (s.m > 1) {
    product_buffer.resize(static_cast<size_t>(s.n * s.m));
    yt = product_buffer.data();
  }
  const int64_t threads = ctx.pool->size();
  const int64_t width = std::min(padded, std::max(step, kTileBytes / (groups * 4) / step * step));
  const int64_t tiles = (s.m + width - 1) / width, panels = (s.n + kQgemmPanelRows - 1) / kQgemmPanelRows;
  const int64_t parts = std::max<int64_t>(1, std::min(panels, (2 * threads + tiles - 1) / tiles));
  const int64_t panels_per_part = (panels + parts - 1) / parts;
  ctx.pool->parallel_for(tiles * parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t c0 = task % tiles * width, cols = std::min(width, s.m - c0);
      const int64_t row0 = task / tiles * panels_per_part * kQgemmPanelRows;
      const int64_t rows = std::min(s.n, row0 + panels_per_part * kQgemmPanelRows) - row0;
      if (rows <= 0) continue;
      QRequantize rq = st.requantize;
      rq.multiplier = st.multiplier.data() + row0;
      rq.bias = bias ? bias + row0 : nullptr;
      qgemm(st.format, w.packed.data() + row0 * groups, rows, groups, columns + c0 * groups, cols, rq,
            yt + row0 * s.m + c0, s.m);
    }
  });
  if (s.m > 1) {
    ctx.pool->parallel_for(s.m, 64,
                           [&](int64_t begin, int64_t end) { transpose_product(yt, s.n, s.m, begin, end, y); });
  }
}

// Both ops' run: QLinearMatMul's output is i8 or u8, MatMulInteger's i32.
Status qmatmul_run(KernelContext& ctx) {
  auto s = matmul_shape(ctx, b_input(ctx));
  if (!s.ok()) return s.status();
  std::unique_ptr<QMatMulState> per_run;
  const QMatMulState* st = static_cast<const QMatMulState*>(ctx.state);
  if (st && !qgemm_packing_current(st->format, st->weight_min, st->weight_max, st->signed_b)) {
    st = nullptr;  // packed at prepare for another instruction set
  }
  if (!st) {
    auto built = build_for_op(ctx, *s);
    if (!built.ok()) return built.status();
    per_run = std::move(*built);
    st = per_run.get();
  }
  if (s->m == 0 || s->n == 0) return {};
  // No depth: every sum is its bias; the reference computes that (the
  // tiles below are sized by the depth).
  if (s->k == 0) return find_reference_kernel(ctx.op.type)->run(ctx);
  const auto* a = static_cast<const uint8_t*>(ctx.in(0).raw());
  void* y = ctx.out(0).raw();
  // A zero point other than the one the bias was made for (computed per
  // run): kQuads takes the difference times each column's weight sum off
  // the bias; kPairs subtracts it as it lays A out.
  const int32_t a_zero = run_a_zero(ctx);
  const bool rebias = a_zero != st->a_zero && st->format == QgemmFormat::kQuads;
  thread_local std::vector<int32_t> run_bias;
  // One B for every matrix of A: A's rows are one matrix of rows, and Y's
  // too (PyTorch's attention exports multiply [128, 1, 256] by a weight: 128
  // products of one row each took 3x the time of one of 128 rows).
  MatMulShape flat = *s;
  if (shape_numel(s->b_batch) == 1 && s->batch_count() > 1) {
    flat.m = s->m * s->batch_count();
    flat.batch.clear();
    flat.a_batch.clear();
    flat.b_batch.clear();
  }
  for_each_matmul_batch(flat, [&](int64_t batch, int64_t a_matrix, int64_t b_matrix) {
    const PackedWeights& w = st->matrices[static_cast<size_t>(b_matrix)];
    const int32_t* bias = w.bias.empty() ? nullptr : w.bias.data();
    if (rebias) bias = qgemm_rebias(bias, w.row_sums, int64_t{a_zero} - st->a_zero, flat.n, run_bias);
    const uint8_t* a_rows = a + a_matrix * flat.m * flat.k;
    const int64_t y_offset = batch * flat.m * flat.n;
    if (st->requantize.dtype == DType::I32) {
      multiply(ctx, *st, flat, w, a_zero, bias, a_rows, static_cast<int32_t*>(y) + y_offset);
    } else {
      multiply(ctx, *st, flat, w, a_zero, bias, a_rows, static_cast<uint8_t*>(y) + y_offset);  // i8 or u8: bytes
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearMatMul, mote::cpu::qmatmul_run, mote::cpu::qmatmul_prepare);
MOTE_CPU_KERNEL(MatMulInteger, mote::cpu::qmatmul_run, mote::cpu::qmatmul_prepare);
