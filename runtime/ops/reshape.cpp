// Ops that give the data a new shape without touching it: Reshape, Flatten,
// Squeeze, Unsqueeze and Identity.
#include <algorithm>
#include <cstdint>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"
#include "runtime/ops/shape_fns.hpp"

namespace mote {
namespace {

std::string list_to_string(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

// ONNX Reshape: 0 copies the input dimension at the same index (unless
// allowzero, where 0 is a real zero), and one -1 takes what is left.
Status infer_reshape(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> requested, known_int_list(ctx, 1, "'shape' (input 1)"));
  const Shape& in = ctx.shape(0);
  const int64_t numel = shape_numel(in);
  if (numel < 0) return ctx.fail("input shape " + shape_to_string(in) + " is not concrete");
  const bool allowzero = attrs<fb::ReshapeAttrsT>(ctx.op).allowzero;

  Shape out(requested.size());
  int inferred = -1;   // index of the -1 entry
  int64_t known = 1;   // product of every other output dimension
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == -1) {
      if (inferred >= 0) return ctx.fail("'shape' " + list_to_string(requested) + " has more than one -1");
      inferred = static_cast<int>(i);
      continue;
    }
    if (d < -1) return ctx.fail("'shape' " + list_to_string(requested) + " has a negative dimension");
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return ctx.fail("'shape'[" + std::to_string(i) + "] is 0 (keep the input dimension) but the input " +
                        shape_to_string(in) + " has only " + std::to_string(in.size()) + " dimensions");
      }
      d = in[i];
    }
    out[i] = d;
    if (d != 0 && known > INT64_MAX / d) return ctx.fail("'shape' " + list_to_string(requested) + " overflows");
    known *= d;
  }
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0) {
      return ctx.fail("cannot infer the -1 in 'shape' " + list_to_string(requested) + " for an input of shape " +
                      shape_to_string(in));
    }
    out[static_cast<size_t>(inferred)] = numel / known;
  } else if (known != numel) {
    return ctx.fail("cannot reshape " + shape_to_string(in) + " (" + std::to_string(numel) + " elements) to " +
                    list_to_string(requested) + " (" + std::to_string(known) + " elements)");
  }
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

// Flatten: a 2-D [prod(dims before axis), prod(dims from axis)]; axis may
// equal the rank. ONNX's default axis is 1, not the schema's 0.
Status infer_flatten(ShapeContext& ctx) {
  const Shape& in = ctx.shape(0);
  const int64_t rank = ctx.rank(0);
  int64_t axis = has_attrs<fb::AxisAttrsT>(ctx.op) ? attrs<fb::AxisAttrsT>(ctx.op).axis : 1;
  if (axis < -rank || axis > rank) {
    return ctx.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  const int64_t outer = shape_numel(Shape(in.begin(), in.begin() + axis));
  const int64_t inner = shape_numel(Shape(in.begin() + axis, in.end()));
  if (outer < 0 || inner < 0) return ctx.fail("input shape " + shape_to_string(in) + " is not concrete");
  ctx.set_output(0, ctx.dtype(0), {outer, inner});
  return {};
}

// Normalises `axes` against `rank` and rejects repeats; `what` names them.
Result<std::vector<int>> normalize_axes(const ShapeContext& ctx, const std::vector<int64_t>& axes, int rank,
                                        const std::string& what) {
  std::vector<int> out;
  for (int64_t a : axes) {
    auto axis = normalize_axis(a, rank);
    if (!axis.ok()) return ctx.fail(what + ": " + axis.status().message());
    if (std::find(out.begin(), out.end(), *axis) != out.end()) {
      return ctx.fail(what + " " + list_to_string(axes) + " repeats axis " + std::to_string(a));
    }
    out.push_back(*axis);
  }
  return out;
}

// Squeeze: removes the listed size-1 axes, or every size-1 axis when 'axes'
// is omitted (an empty list removes none, as in the ONNX reference).
Status infer_squeeze(ShapeContext& ctx) {
  const Shape& in = ctx.shape(0);
  std::vector<bool> drop(in.size(), false);
  if (ctx.has_input(1)) {
    MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, known_int_list(ctx, 1, "'axes' (input 1)"));
    MOTE_ASSIGN_OR_RETURN(std::vector<int> normalized, normalize_axes(ctx, axes, ctx.rank(0), "'axes'"));
    for (int a : normalized) {
      if (in[static_cast<size_t>(a)] != 1) {
        return ctx.fail("cannot squeeze axis " + std::to_string(a) + " of shape " + shape_to_string(in) +
                        ": its size is not 1");
      }
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

// Unsqueeze: inserts size-1 axes at the listed positions of the output.
Status infer_unsqueeze(ShapeContext& ctx) {
  const Shape& in = ctx.shape(0);
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, known_int_list(ctx, 1, "'axes' (input 1)"));
  const int out_rank = ctx.rank(0) + static_cast<int>(axes.size());
  MOTE_ASSIGN_OR_RETURN(std::vector<int> normalized, normalize_axes(ctx, axes, out_rank, "'axes'"));
  Shape out(static_cast<size_t>(out_rank), 1);
  std::vector<bool> inserted(out.size(), false);
  for (int a : normalized) inserted[static_cast<size_t>(a)] = true;
  size_t next = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!inserted[i]) out[i] = in[next++];
  }
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Reshape, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_reshape});
MOTE_OP_DEF(Flatten, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_flatten});
MOTE_OP_DEF(Squeeze, {.min_inputs = 1, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_squeeze});
MOTE_OP_DEF(Unsqueeze, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 1u << 1, .infer = mote::infer_unsqueeze});
MOTE_OP_DEF(Identity, {.min_inputs = 1, .max_inputs = 1, .infer = mote::shape_fns::same_as_input0});
