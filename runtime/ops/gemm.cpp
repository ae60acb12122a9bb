// Gemm: Y = alpha * op(A) * op(B) + beta * C, with A and B matrices and C
// unidirectionally broadcast to the output's [M, N].
#include "runtime/core/attrs.hpp"
#include "runtime/ops/float_inputs.hpp"

namespace mote {
namespace {

Status infer_gemm(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_same_float_dtype(ctx, {"A", "B", "C"}));
  const auto& a = attrs<fb::GemmAttrsT>(ctx.op);
  if (ctx.rank(0) != 2) return ctx.fail("input A has shape " + shape_to_string(ctx.shape(0)) + ", expected a matrix");
  if (ctx.rank(1) != 2) return ctx.fail("input B has shape " + shape_to_string(ctx.shape(1)) + ", expected a matrix");
  const Shape& sa = ctx.shape(0);
  const Shape& sb = ctx.shape(1);
  int64_t m = a.trans_a ? sa[1] : sa[0];
  int64_t k = a.trans_a ? sa[0] : sa[1];
  int64_t kb = a.trans_b ? sb[1] : sb[0];
  int64_t n = a.trans_b ? sb[0] : sb[1];
  if (m < 0 || n < 0 || k < 0 || k != kb) {
    return ctx.fail("inner dimensions differ: op(A) of " + shape_to_string(sa) + (a.trans_a ? " (transposed)" : "") +
                    " has " + std::to_string(k) + " columns, op(B) of " + shape_to_string(sb) +
                    (a.trans_b ? " (transposed)" : "") + " has " + std::to_string(kb) + " rows");
  }
  if (ctx.has_input(2)) {
    // Unidirectional broadcast: C's dims, right-aligned, are 1 or equal.
    const Shape& sc = ctx.shape(2);
    const Shape out = {m, n};
    bool fits = sc.size() <= 2;
    for (size_t i = 0; fits && i < sc.size(); ++i) {
      int64_t target = out[2 - sc.size() + i];
      fits = sc[i] == 1 || sc[i] == target;
    }
    if (!fits) {
      return ctx.fail("input C has shape " + shape_to_string(sc) + ", which does not broadcast to the output " +
                      shape_to_string(out));
    }
  }
  ctx.set_output(0, ctx.dtype(0), {m, n});
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Gemm, {.min_inputs = 2, .max_inputs = 3, .infer = mote::infer_gemm});
