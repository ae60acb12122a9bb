// Concat joins its inputs along an axis; Split cuts its input along an axis.
#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

Status infer_concat(ShapeContext& ctx) {
  if (ctx.inputs.empty()) return ctx.fail("needs at least one input");
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!ctx.has_input(i)) return ctx.fail("input " + std::to_string(i) + " is missing");
  }
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, ctx.rank(0));
  if (!axis.ok() || ctx.rank(0) == 0) {
    return ctx.fail("axis " + std::to_string(attrs<fb::AxisAttrsT>(ctx.op).axis) + " out of range for rank " +
                    std::to_string(ctx.rank(0)));
  }
  Shape out = ctx.shape(0);
  out[static_cast<size_t>(*axis)] = 0;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const Shape& s = ctx.shape(i);
    if (ctx.dtype(i) != ctx.dtype(0)) {
      return ctx.fail("input " + std::to_string(i) + " is " + dtype_name(ctx.dtype(i)) + " but input 0 is " +
                      dtype_name(ctx.dtype(0)));
    }
    bool compatible = s.size() == out.size();
    for (size_t k = 0; compatible && k < s.size(); ++k) {
      compatible = static_cast<int>(k) == *axis || s[k] == ctx.shape(0)[k];
    }
    if (!compatible) {
      return ctx.fail("input " + std::to_string(i) + " of shape " + shape_to_string(s) +
                      " does not match input 0 of shape " + shape_to_string(ctx.shape(0)) + " outside axis " +
                      std::to_string(*axis));
    }
    out[static_cast<size_t>(*axis)] += s[static_cast<size_t>(*axis)];
  }
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

// Chunk sizes when no sizes are given: ceil(dim / n) each, the last one
// smaller when dim is not a multiple of n (ONNX 18).
Result<std::vector<int64_t>> even_split(const ShapeContext& ctx, int64_t dim, int64_t n) {
  const int64_t chunk = (dim + n - 1) / n;
  if (chunk * (n - 1) > dim) {
    return ctx.fail("cannot split a dimension of " + std::to_string(dim) + " into " + std::to_string(n) +
                    " chunks of " + std::to_string(chunk));
  }
  std::vector<int64_t> sizes(static_cast<size_t>(n), chunk);
  sizes.back() = dim - chunk * (n - 1);
  return sizes;
}

// Sizes along the axis: input 1 when given, else 'num_outputs' chunks, else
// as many chunks as the op has outputs.
Status infer_split(ShapeContext& ctx) {
  const auto& a = attrs<fb::SplitAttrsT>(ctx.op);
  const Shape& in = ctx.shape(0);
  auto axis = normalize_axis(a.axis, ctx.rank(0));
  if (!axis.ok() || in.empty()) {
    return ctx.fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(in.size()));
  }
  const int64_t dim = in[static_cast<size_t>(*axis)];
  const int64_t declared_outputs = static_cast<int64_t>(ctx.op.outputs.size());

  std::vector<int64_t> sizes;
  bool sizes_given = false;
  if (ctx.has_input(1)) {
    MOTE_ASSIGN_OR_RETURN(sizes, known_int_list(ctx, 1, "'split' (input 1)"));
    sizes_given = !sizes.empty();  // an empty list stands for an omitted input
  }
  if (!sizes_given) {
    const int64_t n = a.num_outputs > 0 ? a.num_outputs : declared_outputs;
    if (n <= 0) return ctx.fail("needs split sizes (input 1), 'num_outputs' or a list of outputs");
    MOTE_ASSIGN_OR_RETURN(sizes, even_split(ctx, dim, n));
  }
  if (declared_outputs > 0 && static_cast<int64_t>(sizes.size()) != declared_outputs) {
    return ctx.fail("splits into " + std::to_string(sizes.size()) + " parts but has " +
                    std::to_string(declared_outputs) + " outputs");
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return ctx.fail("'split' has a negative size " + std::to_string(s));
    total = s > dim - total ? dim + 1 : total + s;  // saturates: any excess is an error
  }
  if (total != dim) {
    return ctx.fail("'split' sizes do not sum to the " + std::to_string(dim) + " of axis " + std::to_string(*axis) +
                    " of " + shape_to_string(in));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape out = in;
    out[static_cast<size_t>(*axis)] = sizes[i];
    ctx.set_output(i, ctx.dtype(0), std::move(out));
  }
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Concat, {.min_inputs = 1, .max_inputs = 1 << 16, .infer = mote::infer_concat});
MOTE_OP_DEF(Split, {.min_inputs = 1, .max_inputs = 2, .min_outputs = 1, .max_outputs = 1 << 16, .value_inputs = 1u << 1, .infer = mote::infer_split});
