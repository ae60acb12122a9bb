#include "runtime/ops/integer_operands.hpp"

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote {

Status check_integer_operands(ShapeContext& ctx, const IntegerOperandNames& names, int64_t b_count) {
  for (size_t i : {0, 1}) {
    if (!is_8bit(ctx.dtype(i))) {
      return ctx.fail((i == 0 ? names.a : names.b) + " has dtype " + dtype_name(ctx.dtype(i)) +
                      "; expected i8 or u8");
    }
  }
  for (size_t i : {2, 3}) {
    if (!ctx.has_input(i)) continue;
    const bool of_b = i == 3;
    const std::string& zero_point = of_b ? names.b_zero : names.a_zero;
    if (ctx.dtype(i) != ctx.dtype(i - 2)) {
      return ctx.fail(zero_point + " has dtype " + dtype_name(ctx.dtype(i)) + "; expected " +
                      (of_b ? names.b : names.a) + "'s");
    }
    const int64_t n = shape_numel(ctx.shape(i));
    if (ctx.rank(i) > 1 || (n != 1 && (!of_b || n != b_count))) {
      return ctx.fail(zero_point + " has shape " + shape_to_string(ctx.shape(i)) +
                      (of_b ? "; expected one value or one per " + names.per_b + " (" + std::to_string(b_count) + ")"
                            : std::string("; expected one value")));
    }
  }
  return {};
}

IntegerZeroPoints read_integer_zero_points(const KernelContext& ctx, int64_t b_count) {
  IntegerZeroPoints z;
  if (ctx.has_input(2) && ctx.in(2).raw()) z.a = int8_element(ctx.in(2), 0);
  for (int64_t n = 0; n < b_count; ++n) {
    z.b.push_back(ctx.has_input(3) ? int8_element(ctx.in(3), ctx.in(3).numel() == 1 ? 0 : n) : 0);
  }
  return z;
}

}  // namespace mote
