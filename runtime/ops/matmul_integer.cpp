#include "runtime/ops/matmul_integer.hpp"

#include <string>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/matmul_shape.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {
namespace {

Status infer_matmul_integer(ShapeContext& ctx) {
  auto s = resolve_matmul(ctx.shape(kMiA), ctx.shape(kMiB));
  if (!s.ok()) return ctx.fail(s.status().message());
  for (size_t i : {kMiA, kMiB}) {
    if (!is_8bit(ctx.dtype(i))) {
      return ctx.fail(std::string(i == kMiA ? "A" : "B") + " has dtype " + dtype_name(ctx.dtype(i)) +
                      "; expected i8 or u8");
    }
  }
  struct ZeroPoint {
    size_t input;
    const char* name;
    size_t operand;
    int64_t per;  // the count a per-axis zero point may have (0: none)
  };
  for (const ZeroPoint& z :
       {ZeroPoint{kMiAZero, "a_zero_point", kMiA, 0}, ZeroPoint{kMiBZero, "b_zero_point", kMiB, s->n}}) {
    if (!ctx.has_input(z.input)) continue;
    if (ctx.dtype(z.input) != ctx.dtype(z.operand)) {
      return ctx.fail(std::string(z.name) + " has dtype " + dtype_name(ctx.dtype(z.input)) + "; expected " +
                      (z.operand == kMiA ? "A's" : "B's"));
    }
    const int64_t n = shape_numel(ctx.shape(z.input));
    if (ctx.rank(z.input) > 1 || (n != 1 && (z.per == 0 || n != z.per))) {
      return ctx.fail(std::string(z.name) + " has shape " + shape_to_string(ctx.shape(z.input)) +
                      (z.per ? "; expected one value or one per column of B (" + std::to_string(z.per) + ")"
                             : std::string("; expected one value")));
    }
  }
  ctx.set_output(0, DType::I32, s->output);
  return {};
}

}  // namespace

MatMulIntegerParams read_matmul_integer_params(const KernelContext& ctx, int64_t columns) {
  MatMulIntegerParams p;
  if (ctx.has_input(kMiAZero) && ctx.in(kMiAZero).raw()) p.a_zero = int8_element(ctx.in(kMiAZero), 0);
  for (int64_t n = 0; n < columns; ++n) {
    const bool has = ctx.has_input(kMiBZero);
    p.b_zero.push_back(has ? int8_element(ctx.in(kMiBZero), ctx.in(kMiBZero).numel() == 1 ? 0 : n) : 0);
  }
  return p;
}

}  // namespace mote

MOTE_OP_DEF(MatMulInteger, {.min_inputs = 2, .max_inputs = 4, .infer = mote::infer_matmul_integer});
