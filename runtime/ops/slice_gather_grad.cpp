// Slice's gradient pads dY with zeros back to the data's shape (unit steps).
// Gather's (axis 0, the embedding lookup) scatters dY rows onto the rows they
// were read from, as a one-hot matrix product: one_hot(indices)^T @ dY. That
// costs K x V floats for K indices into V rows, fine for the tables trained
// on devices so far; a scatter-add op would replace it for large vocabularies.
#include <numeric>

#include "runtime/core/shape_util.hpp"
#include "runtime/ops/slice_gather.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status slice_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const Shape data = g.shape(c.in(0));
  for (size_t i = 1; i < c.op.inputs.size(); ++i) {
    if (c.in(i) >= 0 && !g.value(c.in(i))) return c.fail("input " + std::to_string(i) + " must be known when the training graph is built");
  }
  auto axes = resolve_slice(data, *g.value(c.in(1)), *g.value(c.in(2)), c.in(3) >= 0 ? g.value(c.in(3)) : nullptr,
                            c.in(4) >= 0 ? g.value(c.in(4)) : nullptr);
  if (!axes.ok()) return c.fail(axes.status().message());
  std::vector<int64_t> begin, end;
  for (size_t i = 0; i < data.size(); ++i) {
    const SliceAxis& s = (*axes)[i];
    if (s.step != 1 && s.count > 1) return c.fail("steps other than 1 are not supported yet");
    begin.push_back(s.start);
    end.push_back(data[i] - s.start - s.count);
  }
  begin.insert(begin.end(), end.begin(), end.end());
  c.set(0, g.op1(fb::OpType::Pad, {c.dy(), g.i64s(begin)}));
  return {};
}

int typed_constant(TrainGraph& g, DType dtype, const std::vector<int64_t>& values) {
  if (dtype == DType::I64) return g.i64s(values);
  std::vector<int32_t> v(values.begin(), values.end());
  return g.constant("gather_grad_const", Tensor::from_vector<int32_t>({static_cast<int64_t>(v.size())}, v));
}

Status gather_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const Shape data = g.shape(c.in(0));
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(c.op).axis, static_cast<int>(data.size()));
  if (!axis.ok()) return c.fail("attribute axis: " + axis.status().message());
  if (*axis != 0) return c.fail("only axis 0 is supported yet");
  const int idx = c.in(1);
  const DType idx_type = g.dtype(idx);
  const int64_t rows = data[0];
  const int64_t k = shape_numel(g.shape(idx));
  const int64_t width = shape_numel(data) / std::max<int64_t>(rows, 1);
  // Negative indices count from the end, as in the forward op.
  int negative = g.op1(fb::OpType::Less, {idx, typed_constant(g, idx_type, {0})});
  int wrapped = g.op1(fb::OpType::Where, {negative, g.add(idx, typed_constant(g, idx_type, {rows})), idx});
  std::vector<int64_t> range(static_cast<size_t>(rows));
  std::iota(range.begin(), range.end(), int64_t{0});
  int column = g.reshape(wrapped, {k, 1});
  fb::CastAttrsT to_float;
  to_float.to = g.float_dtype();
  int equal = g.op1(fb::OpType::Equal, {column, typed_constant(g, idx_type, range)});
  int onehot = g.op1(fb::OpType::Cast, {equal}, to_float);
  fb::GemmAttrsT transposed;
  transposed.trans_a = true;
  int rows_grad = g.op1(fb::OpType::Gemm, {onehot, g.reshape(c.dy(), {k, width})}, transposed);
  c.set(0, g.reshape(rows_grad, data));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Slice, mote::slice_grad);
MOTE_GRAD(Gather, mote::gather_grad);
