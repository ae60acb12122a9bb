// onnxruntime's quantised operators (domain com.microsoft), which its
// quantize_static writes in the QOperator format (and older onnxruntime
// versions wrote by default): QLinearAdd, QLinearMul, QLinearConcat,
// QLinearAveragePool and QLinearGlobalAveragePool map to Mote's ops of the
// same names, QLinearSigmoid and QLinearLeakyRelu to QLinearActivation,
// QGemm to QLinearMatMul with its bias; where Mote's op does not take the
// parameters (per-axis activations, a float QGemm output), and for
// QLinearSoftmax, which Mote has no int8 kernel for, the node becomes its
// definition in float: dequantise, the float op, quantise. Registered as "com_microsoft_<op type>" (the
// importer's key for the domain).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "converters/onnx/mapper_util.hpp"
#include "runtime/ops/qlinear_elementwise.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::convert {
namespace {

bool present(NodeContext& ctx, size_t i) { return ctx.input_count() > i && ctx.has_input(i); }

// Input i, or a constant 0 of `dtype` where the node omits it (the
// com.microsoft ops' zero points are optional; Mote's are not).
int zero_point_or_zero(NodeContext& ctx, size_t i, DType dtype, const std::string& name) {
  return present(ctx, i) ? ctx.input(i) : ctx.scalar(dtype, 0, name);
}

// Whether inputs `scalars` (those present) are known one-element tensors.
bool per_tensor(NodeContext& ctx, const std::vector<size_t>& scalars) {
  for (size_t i : scalars) {
    if (!present(ctx, i)) continue;
    const Value& v = ctx.value(ctx.input(i));
    if (!v.shape_static() || shape_numel(v.shape) != 1) return false;
  }
  return true;
}

// Input i's type when known and 8-bit.
std::optional<DType> int8_type(NodeContext& ctx, size_t i) {
  const Value& v = ctx.value(ctx.input(i));
  if (!v.dtype_known || !is_8bit(v.dtype)) return std::nullopt;
  return v.dtype;
}

// x (input `data`, with its scale and optional zero point) dequantised.
int dequantized(NodeContext& ctx, size_t data, const std::string& name) {
  return dequantize(ctx, ctx.input(data), ctx.input(data + 1), present(ctx, data + 2) ? ctx.input(data + 2) : -1, 1,
                    name);
}

// y = QuantizeLinear(real, input `scale`, input `scale` + 1) into the
// node's output; an omitted zero point is a 0 of input `data`'s type (the
// output's type: these ops keep their input's).
Status quantize_output(NodeContext& ctx, int real, size_t scale, size_t data) {
  const DType t = int8_type(ctx, data).value_or(DType::U8);
  ctx.emit(fb::OpType::QuantizeLinear,
           {real, ctx.input(scale), zero_point_or_zero(ctx, scale + 1, t, "Y_zero_point")}, {ctx.output(0)},
           fb::QuantizeAttrsT{});
  return ctx.status();
}

// QLinearAdd / QLinearMul(A, A_scale, A_zp?, B, B_scale, B_zp?, C_scale,
// C_zp?).
template <fb::OpType kMote, fb::OpType kFloat>
Status map_qlinear_binary(NodeContext& ctx) {
  const std::optional<DType> t = int8_type(ctx, 0);
  if (t && int8_type(ctx, 3) == t && per_tensor(ctx, {1, 2, 4, 5, 6, 7}) &&
      (!present(ctx, 7) || ctx.value(ctx.input(7)).dtype == *t)) {
    ctx.emit(kMote,
             {ctx.input(0), ctx.input(1), zero_point_or_zero(ctx, 2, *t, "A_zero_point"), ctx.input(3), ctx.input(4),
              zero_point_or_zero(ctx, 5, *t, "B_zero_point"), ctx.input(6),
              zero_point_or_zero(ctx, 7, *t, "C_zero_point")},
             {ctx.output(0)});
    return ctx.status();
  }
  const int real = binary(ctx, kFloat, dequantized(ctx, 0, "A_real"), dequantized(ctx, 3, "B_real"), "C_real");
  return quantize_output(ctx, real, 6, 0);
}

// QLinearConcat(Y_scale, Y_zp, then X, X_scale, X_zp per input; axis).
Status map_qlinear_concat(NodeContext& ctx) {
  const size_t n = ctx.input_count();
  if (n < 5 || (n - 2) % 3 != 0) {
    return ctx.invalid("expects Y_scale, Y_zero_point and a (X, X_scale, X_zero_point) triple per input, got " +
                       std::to_string(n) + " inputs");
  }
  fb::AxisAttrsT a;
  a.axis = ctx.attr_int("axis", 0);
  std::vector<size_t> scalars = {0, 1};
  for (size_t k = 2; k < n; k += 3) scalars.insert(scalars.end(), {k + 1, k + 2});
  bool fits = per_tensor(ctx, scalars) && present(ctx, 1);
  for (size_t k = 2; fits && k < n; k += 3) fits = int8_type(ctx, k) && present(ctx, k + 2);
  if (fits) {
    std::vector<int> inputs;
    for (size_t i = 0; i < n; ++i) inputs.push_back(ctx.input(i));
    ctx.emit(fb::OpType::QLinearConcat, inputs, {ctx.output(0)}, a);
    return ctx.status();
  }
  std::vector<int> reals;
  for (size_t k = 2; k < n; k += 3) reals.push_back(dequantized(ctx, k, qconcat_label((k - 2) / 3).append("_real")));
  const int joined = ctx.temp("Y_real");
  ctx.emit(fb::OpType::Concat, reals, {joined}, a);
  return quantize_output(ctx, joined, 0, 2);
}

// QLinearAveragePool and QLinearGlobalAveragePool (X, X_scale, X_zp?,
// Y_scale, Y_zp?); NCHW only (channels_last 0).
template <bool kGlobal>
Status map_qlinear_average_pool(NodeContext& ctx) {
  if (ctx.attr_int("channels_last", 0) != 0) return ctx.unsupported("channels_last=1 (Mote pools NCHW tensors)");
  const std::optional<DType> x = int8_type(ctx, 0);
  const bool fits = x && per_tensor(ctx, {1, 2, 3, 4});
  fb::PoolAttrsT a;
  if (!kGlobal) {
    a = onnx_pool_attrs(ctx);
    a.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  }
  if (fits) {
    std::vector<int> inputs = {ctx.input(0), ctx.input(1), zero_point_or_zero(ctx, 2, *x, "X_zero_point"),
                               ctx.input(3), zero_point_or_zero(ctx, 4, *x, "Y_zero_point")};
    if (kGlobal) {
      ctx.emit(fb::OpType::QLinearGlobalAveragePool, inputs, {ctx.output(0)});
    } else {
      ctx.emit(fb::OpType::QLinearAveragePool, inputs, {ctx.output(0)}, a);
    }
    return ctx.status();
  }
  const int real = ctx.temp("Y_real");
  if (kGlobal) {
    ctx.emit(fb::OpType::GlobalAveragePool, {dequantized(ctx, 0, "X_real")}, {real});
  } else {
    ctx.emit(fb::OpType::AveragePool, {dequantized(ctx, 0, "X_real")}, {real}, a);
  }
  return quantize_output(ctx, real, 3, 0);
}

// QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?; alpha,
// transA, transB): y = alpha A' B' + C, C an i32 bias at a_scale * b_scale,
// quantised with y's parameters, or f32 without y_scale. QLinearMatMul
// with the bias (B transposed by a constant Transpose, which the converter
// folds) where it fits: alpha 1, A not transposed, y quantised, A's
// parameters per tensor, B's per tensor or per column, C one per column.
Status map_qgemm(NodeContext& ctx) {
  const float alpha = ctx.attr_float("alpha", 1.0f);
  // Forms whose meaning onnxruntime's documentation leaves open: refused
  // rather than guessed.
  if (present(ctx, 7) && !present(ctx, 8)) {
    return ctx.unsupported("y_scale without y_zero_point (the output type is not known)");
  }
  if (alpha != 1.0f && present(ctx, 6)) return ctx.unsupported("alpha other than 1 with a bias C");
  const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
  const Value& b = ctx.value(ctx.input(3));
  const int64_t columns = b.shape_static() && b.shape.size() == 2 ? b.shape[trans_b ? 0 : 1] : -1;
  const auto per_column = [&](size_t i) {
    if (!present(ctx, i)) return true;
    const Value& v = ctx.value(ctx.input(i));
    return v.shape_static() && (shape_numel(v.shape) == 1 || (v.shape.size() == 1 && v.shape[0] == columns));
  };
  const bool bias_fits =
      !present(ctx, 6) || (ctx.value(ctx.input(6)).shape_static() && ctx.value(ctx.input(6)).shape == Shape{columns});
  if (alpha == 1.0f && !trans_a && present(ctx, 7) && columns > 0 && int8_type(ctx, 0) && int8_type(ctx, 3) &&
      per_tensor(ctx, {1, 2, 7, 8}) && per_column(4) && per_column(5) && bias_fits) {
    int w = ctx.input(3);
    if (trans_b) {
      fb::TransposeAttrsT t;
      t.perm = {1, 0};
      w = ctx.temp("B_transposed");
      ctx.emit(fb::OpType::Transpose, {ctx.input(3)}, {w}, t);
    }
    std::vector<int> inputs = {ctx.input(0),
                               ctx.input(1),
                               zero_point_or_zero(ctx, 2, *int8_type(ctx, 0), "a_zero_point"),
                               w,
                               ctx.input(4),
                               zero_point_or_zero(ctx, 5, *int8_type(ctx, 3), "b_zero_point"),
                               ctx.input(7),
                               ctx.input(8)};
    if (present(ctx, 6)) inputs.push_back(ctx.input(6));
    ctx.emit(fb::OpType::QLinearMatMul, inputs, {ctx.output(0)});
    return ctx.status();
  }
  // The definition in float: B's parameters along its output axis.
  const int a = dequantized(ctx, 0, "A_real");
  const int w =
      dequantize(ctx, ctx.input(3), ctx.input(4), present(ctx, 5) ? ctx.input(5) : -1, trans_b ? 0 : 1, "B_real");
  std::vector<int> inputs = {a, w};
  if (present(ctx, 6)) {
    const int bias_scale = binary(ctx, fb::OpType::Mul, ctx.input(1), ctx.input(4), "C_scale");
    inputs.push_back(
        binary(ctx, fb::OpType::Mul, cast(ctx, ctx.input(6), DType::F32, "C_f32"), bias_scale, "C_real"));
  }
  fb::GemmAttrsT g;
  g.alpha = alpha;
  g.beta = 1.0f;
  g.trans_a = trans_a;
  g.trans_b = trans_b;
  if (!present(ctx, 7)) {
    ctx.emit(fb::OpType::Gemm, inputs, {ctx.output(0)}, g);
    return ctx.status();
  }
  const int real = ctx.temp("Y_real");
  ctx.emit(fb::OpType::Gemm, inputs, {real}, g);
  return quantize_output(ctx, real, 7, 0);
}

// QLinearSigmoid and QLinearLeakyRelu (alpha): X, X_scale, X_zp?,
// Y_scale, Y_zp?. Mote's QLinearActivation with the activation fused where
// the parameters are per tensor; else the float op between
// (de)quantisations.
Status map_qlinear_activation(NodeContext& ctx, fb::ActivationKind kind, fb::OpType float_op) {
  fb::FusedActivationT act;
  act.kind = kind;
  act.alpha = ctx.attr_float("alpha", 0.01f);
  const std::optional<DType> x = int8_type(ctx, 0);
  if (x && per_tensor(ctx, {1, 2, 3, 4})) {
    fb::OpT& op = ctx.emit(fb::OpType::QLinearActivation,
                           {ctx.input(0), ctx.input(1), zero_point_or_zero(ctx, 2, *x, "X_zero_point"), ctx.input(3),
                            zero_point_or_zero(ctx, 4, *x, "Y_zero_point")},
                           {ctx.output(0)});
    op.fused = std::make_unique<fb::FusedActivationT>(act);
    return ctx.status();
  }
  const int real = ctx.temp("Y_real");
  fb::OpT& op = ctx.emit(float_op, {dequantized(ctx, 0, "X_real")}, {real});
  if (kind == fb::ActivationKind::LeakyRelu) {
    fb::ActivationAttrsT a;
    a.alpha = act.alpha;
    set_attrs(op, a);
  }
  return quantize_output(ctx, real, 3, 0);
}

Status map_qlinear_sigmoid(NodeContext& ctx) {
  return map_qlinear_activation(ctx, fb::ActivationKind::Sigmoid, fb::OpType::Sigmoid);
}
Status map_qlinear_leaky_relu(NodeContext& ctx) {
  return map_qlinear_activation(ctx, fb::ActivationKind::LeakyRelu, fb::OpType::LeakyRelu);
}

// QLinearSoftmax (axis; its `opset` attribute names the Softmax semantics):
// the float Softmax between (de)quantisations.
Status map_qlinear_softmax(NodeContext& ctx) {
  const bool old_semantics = ctx.attr_int("opset", 13) < 13;
  const int64_t axis = ctx.attr_int("axis", old_semantics ? 1 : -1);  // Softmax's defaults
  const Value& x = ctx.value(ctx.input(0));
  // Before opset 13, Softmax flattened the dims from `axis` on into one:
  // the same as opset 13's only when that is the last dim.
  const bool last = axis == -1 || (x.shape_static() && axis == static_cast<int64_t>(x.shape.size()) - 1);
  if (old_semantics && !last) {
    return ctx.unsupported("opset < 13 semantics over more than the last axis (axis " + std::to_string(axis) + ")");
  }
  fb::AxisAttrsT a;
  a.axis = axis;
  const int real = ctx.temp("Y_real");
  ctx.emit(fb::OpType::Softmax, {dequantized(ctx, 0, "X_real")}, {real}, a);
  return quantize_output(ctx, real, 3, 0);
}

}  // namespace

MOTE_ONNX_OP(com_microsoft_QLinearAdd, (map_qlinear_binary<fb::OpType::QLinearAdd, fb::OpType::Add>));
MOTE_ONNX_OP(com_microsoft_QLinearMul, (map_qlinear_binary<fb::OpType::QLinearMul, fb::OpType::Mul>));
MOTE_ONNX_OP(com_microsoft_QLinearConcat, map_qlinear_concat);
MOTE_ONNX_OP(com_microsoft_QLinearAveragePool, map_qlinear_average_pool<false>);
MOTE_ONNX_OP(com_microsoft_QLinearGlobalAveragePool, map_qlinear_average_pool<true>);
MOTE_ONNX_OP(com_microsoft_QGemm, map_qgemm);
MOTE_ONNX_OP(com_microsoft_QLinearSigmoid, map_qlinear_sigmoid);
MOTE_ONNX_OP(com_microsoft_QLinearLeakyRelu, map_qlinear_leaky_relu);
MOTE_ONNX_OP(com_microsoft_QLinearSoftmax, map_qlinear_softmax);

}  // namespace mote::convert
