// Slice takes a strided window of its input; Gather picks entries along an
// axis by index.
#include "runtime/ops/slice_gather.hpp"

#include <algorithm>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

Result<std::vector<SliceAxis>> resolve_slice(const Shape& data, const Tensor& starts_t, const Tensor& ends_t,
                                             const Tensor* axes_t, const Tensor* steps_t) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> starts, read_int_list(starts_t, "'starts' (input 1)"));
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> ends, read_int_list(ends_t, "'ends' (input 2)"));
  const size_t n = starts.size();
  if (ends.size() != n) return invalid_argument("'starts' and 'ends' have different lengths");
  std::vector<int64_t> axes(n), steps(n, 1);
  for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
  if (axes_t) {
    MOTE_ASSIGN_OR_RETURN(axes, read_int_list(*axes_t, "'axes' (input 3)"));
    if (axes.size() != n) return invalid_argument("'axes' and 'starts' have different lengths");
  }
  if (steps_t) {
    MOTE_ASSIGN_OR_RETURN(steps, read_int_list(*steps_t, "'steps' (input 4)"));
    if (steps.size() != n) return invalid_argument("'steps' and 'starts' have different lengths");
  }

  std::vector<SliceAxis> slices(data.size());
  std::vector<bool> seen(data.size(), false);
  for (size_t k = 0; k < data.size(); ++k) slices[k].count = data[k];
  for (size_t i = 0; i < n; ++i) {
    MOTE_ASSIGN_OR_RETURN(int axis, normalize_axis(axes[i], static_cast<int>(data.size())));
    if (data.empty()) return invalid_argument("cannot slice a scalar");
    if (seen[static_cast<size_t>(axis)]) return invalid_argument("'axes' repeats axis " + std::to_string(axes[i]));
    seen[static_cast<size_t>(axis)] = true;
    const int64_t dim = data[static_cast<size_t>(axis)];
    int64_t step = steps[i];
    if (step == 0) return invalid_argument("'steps'[" + std::to_string(i) + "] is 0");
    SliceAxis& s = slices[static_cast<size_t>(axis)];
    if (dim == 0) {
      s = {0, 1, 0};
      continue;
    }
    // A step beyond the dimension reads one element at most; clamping it
    // keeps the arithmetic below (and the kernels' strides) in range.
    step = std::clamp<int64_t>(step, -dim, dim);
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    s.step = step;
    if (step > 0) {
      s.start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      s.count = end > s.start ? (end - s.start + step - 1) / step : 0;
    } else {
      s.start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      s.count = s.start > end ? (s.start - end - step - 1) / -step : 0;
    }
  }
  return slices;
}

Result<std::vector<int64_t>> gather_indices(const Tensor& indices, int64_t dim) {
  if (indices.dtype() != DType::I64 && indices.dtype() != DType::I32) {
    return invalid_argument(std::string("'indices' must be i64 or i32, not ") + dtype_name(indices.dtype()));
  }
  std::vector<int64_t> out(static_cast<size_t>(indices.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t v = indices.dtype() == DType::I64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i];
    if (v < -dim || v >= dim) {
      return invalid_argument("'indices' element " + std::to_string(i) + " is " + std::to_string(v) +
                              ", out of range for a dimension of " + std::to_string(dim));
    }
    out[i] = v < 0 ? v + dim : v;
  }
  return out;
}

namespace {

Status infer_slice(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(const Tensor* starts, known_input_value(ctx, 1, "'starts' (input 1)"));
  MOTE_ASSIGN_OR_RETURN(const Tensor* ends, known_input_value(ctx, 2, "'ends' (input 2)"));
  for (size_t i : {3, 4}) {
    if (ctx.has_input(i)) MOTE_RETURN_IF_ERROR(known_input_value(ctx, i, "input " + std::to_string(i)).status());
  }
  auto slices = resolve_slice(ctx.shape(0), *starts, *ends, optional_value(ctx, 3), optional_value(ctx, 4));
  if (!slices.ok()) return ctx.fail(slices.status().message());
  Shape out;
  for (const SliceAxis& s : *slices) out.push_back(s.count);
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

// Output: data.shape[:axis] + indices.shape + data.shape[axis+1:].
Status infer_gather(ShapeContext& ctx) {
  const Shape& data = ctx.shape(0);
  const int64_t axis_attr = attrs<fb::AxisAttrsT>(ctx.op).axis;
  auto axis = normalize_axis(axis_attr, ctx.rank(0));
  if (!axis.ok() || data.empty()) {
    return ctx.fail("axis " + std::to_string(axis_attr) + " out of range for data of rank " +
                    std::to_string(data.size()));
  }
  if (ctx.dtype(1) != DType::I64 && ctx.dtype(1) != DType::I32) {
    return ctx.fail(std::string("'indices' must be i64 or i32, not ") + dtype_name(ctx.dtype(1)));
  }
  if (const Tensor* known = ctx.inputs[1].value; known && known->raw()) {
    auto checked = gather_indices(*known, data[static_cast<size_t>(*axis)]);
    if (!checked.ok()) return ctx.fail(checked.status().message());
  }
  Shape out(data.begin(), data.begin() + *axis);
  out.insert(out.end(), ctx.shape(1).begin(), ctx.shape(1).end());
  out.insert(out.end(), data.begin() + *axis + 1, data.end());
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Slice, {.min_inputs = 3, .max_inputs = 5, .value_inputs = 0b11110u, .infer = mote::infer_slice});
MOTE_OP_DEF(Gather, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_gather});
