// DFT(x, dft_length?, axis?): the discrete Fourier transform of x along one
// axis, x's last dimension holding (real) or (real, imaginary).
#include "runtime/ops/dft.hpp"

#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

Result<DftGeometry> dft_geometry(const fb::DftAttrsT& a, const Shape& x, const Tensor* length, const Tensor* axis) {
  if (x.size() < 2 || (x.back() != 1 && x.back() != 2)) {
    return invalid_argument("x " + shape_to_string(x) + " must end in 1 (real) or 2 (complex)");
  }
  DftGeometry g;
  int64_t axis_value = -2;
  if (axis && axis->numel() > 0) {
    MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> v, read_int_list(*axis, "'axis' (input 2)"));
    axis_value = v[0];
  }
  const auto rank = static_cast<int64_t>(x.size());
  // The last dimension holds the real and imaginary parts: -1 names it too.
  if (axis_value < -rank || axis_value >= rank - 1 || axis_value == -1) {
    return invalid_argument("axis " + std::to_string(axis_value) + " must name a signal dimension of x " + shape_to_string(x));
  }
  g.axis = static_cast<int>(axis_value < 0 ? axis_value + rank : axis_value);
  const int64_t in_len = x[static_cast<size_t>(g.axis)];
  g.length = a.inverse && a.onesided ? 2 * (in_len - 1) : in_len;
  if (length && length->numel() > 0) {
    MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> v, read_int_list(*length, "'dft_length' (input 1)"));
    g.length = v[0];
  }
  if (g.length < 1) return invalid_argument("dft_length " + std::to_string(g.length) + " must be positive");
  g.out = x;
  g.out[static_cast<size_t>(g.axis)] = !a.inverse && a.onesided ? g.length / 2 + 1 : g.length;
  g.out.back() = a.inverse && a.onesided ? 1 : 2;
  return g;
}

namespace {

Status infer_dft(ShapeContext& ctx) {
  if (ctx.dtype(0) != DType::F32 && ctx.dtype(0) != DType::F64) {
    return ctx.fail(std::string("x has dtype ") + dtype_name(ctx.dtype(0)) + "; supported: f32, f64");
  }
  for (size_t i : {1, 2}) {
    if (ctx.has_input(i)) MOTE_RETURN_IF_ERROR(known_input_value(ctx, i, "input " + std::to_string(i)).status());
  }
  auto g = dft_geometry(attrs<fb::DftAttrsT>(ctx.op), ctx.shape(0), optional_value(ctx, 1), optional_value(ctx, 2));
  if (!g.ok()) return ctx.fail(g.status().message());
  ctx.set_output(0, ctx.dtype(0), g->out);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(DFT, {.min_inputs = 1, .max_inputs = 3, .value_inputs = 0b110u, .infer = mote::infer_dft});
