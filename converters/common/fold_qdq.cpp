// QDQ folding: a quantised model describes an int8 convolution as float ops
// between Quantize/Dequantize pairs (ONNX's QDQ format; the TFLite importer
// writes int8 operators the same way):
//
//   x_q -> DequantizeLinear -> Conv(W = DequantizeLinear(int8 constant), bias)
//       -> [Relu | Clip] -> QuantizeLinear -> y_q
//
// The pattern becomes QLinearConv(x_q, W_q, ..., y scale and zero point,
// int32 bias) with the activation as its fused clamp, so the int8 kernel runs
// it and the float tensors between never exist. Its result differs from the
// float chain only in rounding: the same scales, the int32 sum exact.
// A MatMul whose B is a dequantised 8-bit constant matrix (a linear layer
// of a QDQ transformer) becomes QLinearMatMul the same way (no bias: ONNX's
// MatMul has none, the Add after it stays a quantised Add), and so does a
// Gemm (a classifier head), its C the int32 bias.
//
// Left as they are (and folded to float weights later): Convs with a
// residual input, per-channel activation scales, Conv weights whose zero
// points are not all 0, MatMul weights quantised along rows or in blocks,
// and any op whose float output has another reader.
#include <algorithm>
#include <cmath>

#include "converters/common/passes.hpp"
#include "converters/common/qdq_match.hpp"
#include "runtime/ops/qlinear_conv.hpp"
#include "runtime/ops/quantize.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_qdq";

using namespace qdq;  // NOLINT: the shared matching pieces

// A weight scale of exactly 0 (a pruned channel: its dequantised weights are
// all 0, whatever they hold) becomes 1 with that channel's weights zeroed:
// the same dequantised weights, and a scale QLinearConv's requantisation and
// the int32 bias (which divides by it) can use, as onnxruntime's quantiser
// writes such channels. Sets w and w_scale to the new constants, if any.
void pruned_channels_to_unit_scale(Graph& g, const std::string& name, int& w, int& w_scale) {
  const Tensor scales = *g.values[static_cast<size_t>(w_scale)].data;  // copies: add_derived_constant
  const Tensor weights = *g.values[static_cast<size_t>(w)].data;       // may move every Value
  const std::vector<double> s = scales.to_doubles();
  if (std::none_of(s.begin(), s.end(), [](double v) { return v == 0.0; })) return;
  const int64_t channels = weights.dim(0), per_channel = weights.numel() / channels;
  Tensor unit_scales = Tensor::zeros(DType::F32, scales.shape());
  Tensor kept = Tensor::zeros(DType::I8, weights.shape());
  for (int64_t c = 0; c < channels; ++c) {
    const size_t k = s.size() == 1 ? 0 : static_cast<size_t>(c);
    if (s[k] == 0.0) continue;  // zeros already
    std::copy_n(weights.data<int8_t>() + c * per_channel, per_channel, kept.data<int8_t>() + c * per_channel);
  }
  for (size_t k = 0; k < s.size(); ++k) unit_scales.data<float>()[k] = s[k] == 0.0 ? 1.0f : static_cast<float>(s[k]);
  w = g.add_derived_constant(name + "/w_pruned_zeroed", std::move(kept));
  w_scale = g.add_derived_constant(name + "/w_scale_pruned_unit", std::move(unit_scales));
}

// Why the Conv's bias cannot become QLinearConv's int32 bias (int32_bias
// below); empty when it can. A float constant, or a DequantizeLinear of an
// integer constant with an f32 scale and a zero point of its type, each one
// value or one per element, one element per output channel, all finite: a
// damaged file may hold any count or type, and int32_bias indexes them per
// channel and converts the result to int32.
std::string bias_problem(const Graph& g, const fb::OpT& conv, const std::vector<int>& producers,
                         int64_t out_channels) {
  if (const Value* b = constant_input(g, conv, 2)) {
    if (b->data->numel() != out_channels) return "bias not one per output channel";
    for (double v : b->data->to_doubles()) {
      if (!std::isfinite(v)) return "bias not finite";
    }
    return "";
  }
  const fb::OpT* dq = producer_of(g, producers, conv.inputs[2], fb::OpType::DequantizeLinear);
  const Value* q = dq ? constant_input(g, *dq, 0) : nullptr;
  const Value* scale = dq ? constant_input(g, *dq, 1) : nullptr;
  if (!q || !scale) return "bias not constant";
  if (dq->inputs.size() > 2 && dq->inputs[2] >= 0 && !constant_input(g, *dq, 2)) return "bias not constant";
  if (q->data->numel() != out_channels) return "bias not one per output channel";
  if (scale->data->dtype() != DType::F32) return "bias scale not f32";
  const Value* zero = dq->inputs.size() > 2 ? constant_input(g, *dq, 2) : nullptr;
  // Integers, so no dequantised value is NaN (int32_bias clamps the rest).
  const DType q_dtype = q->data->dtype();
  if ((q_dtype != DType::I32 && !is_8bit(q_dtype)) || (zero && zero->data->dtype() != q_dtype)) {
    return "quantised bias or its zero point not of one integer type";
  }
  for (const Value* v : {scale, zero}) {
    if (v && v->data->numel() != 1 && v->data->numel() != out_channels) {
      return "bias scale or zero point not per tensor or per channel";
    }
  }
  for (double v : scale->data->to_doubles()) {
    if (!std::isfinite(v)) return "bias scale not finite";
  }
  return "";
}

std::string match(const Graph& g, const fb::OpT& conv, const std::vector<int>& producers,
                  const std::vector<std::vector<int>>& consumers, Match& m) {
  if (conv.inputs.size() > 3 || conv.fused) return "residual input or fused activation";
  m.dq_x = producer_of(g, producers, conv.inputs[0], fb::OpType::DequantizeLinear);
  m.dq_w = producer_of(g, producers, conv.inputs[1], fb::OpType::DequantizeLinear);
  if (!m.dq_x || !m.dq_w) return "";  // not a quantised Conv: nothing to say
  if (std::string why = match_input(g, *m.dq_x); !why.empty()) return why;
  const Value* w = constant_input(g, *m.dq_w, 0);
  if (!w || w->data->dtype() != DType::I8 || w->data->rank() < 3) return "weights not constant int8";
  if (has_attrs<fb::QuantizeAttrsT>(*m.dq_w) && attrs<fb::QuantizeAttrsT>(*m.dq_w).block_size != 0) return "blocked weights";
  const Value* w_scale = constant_input(g, *m.dq_w, 1);
  if (!w_scale || w_scale->data->dtype() != DType::F32) return "weight scale not constant";
  if (!usable_scales(*w_scale->data, /*zero_ok=*/true)) return "weight scales not finite and positive";
  const int64_t out_channels = w->data->dim(0);
  if (w_scale->data->numel() != 1 && (w_scale->data->numel() != out_channels ||
                                      (has_attrs<fb::QuantizeAttrsT>(*m.dq_w) && attrs<fb::QuantizeAttrsT>(*m.dq_w).axis != 0))) {
    return "weight scales not per output channel";
  }
  if (const Value* wz = constant_input(g, *m.dq_w, 2)) {
    for (int64_t i = 0; i < wz->data->numel(); ++i) {
      if (int8_element(*wz->data, i) != 0) return "weight zero point not 0";
    }
  } else if (m.dq_w->inputs.size() > 2 && m.dq_w->inputs[2] >= 0) {
    return "weight zero point not constant";
  }
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    const std::string why = bias_problem(g, conv, producers, out_channels);
    if (!why.empty()) return why;
  }
  return match_output(g, consumers, conv.outputs[0], m);
}

// x_q -> DequantizeLinear -> MatMul(B = DequantizeLinear(8-bit constant
// matrix, per tensor or per column)) -> [Relu | Clip] -> QuantizeLinear:
// QLinearMatMul takes any zero points of B's type, one or one per column.
// A Gemm's weights may be stored [N, K] (transB): `output_axis` is the
// weights' axis of the outputs (1 for MatMul's [K, N]).
std::string match_matmul(const Graph& g, const fb::OpT& mm, const std::vector<int>& producers,
                         const std::vector<std::vector<int>>& consumers, Match& m, int output_axis = 1) {
  m.dq_x = producer_of(g, producers, mm.inputs[0], fb::OpType::DequantizeLinear);
  m.dq_w = producer_of(g, producers, mm.inputs[1], fb::OpType::DequantizeLinear);
  if (!m.dq_x || !m.dq_w) return "";  // not a quantised MatMul: nothing to say
  if (mm.fused) return "fused activation";
  if (std::string why = match_input(g, *m.dq_x); !why.empty()) return why;
  const Value* w = constant_input(g, *m.dq_w, 0);
  if (!w || !is_8bit(w->data->dtype()) || w->data->rank() != 2) return "weights not a constant 8-bit matrix";
  const fb::QuantizeAttrsT* a =
      has_attrs<fb::QuantizeAttrsT>(*m.dq_w) ? &attrs<fb::QuantizeAttrsT>(*m.dq_w) : nullptr;
  if (a && a->block_size != 0) return "blocked weights";
  const int64_t axis = a ? a->axis : 1;  // DequantizeLinear's default
  const bool along_columns = axis == output_axis || axis == output_axis - 2;
  const int64_t columns = w->data->dim(output_axis);
  const Value* w_scale = constant_input(g, *m.dq_w, 1);
  if (!w_scale || w_scale->data->dtype() != DType::F32) return "weight scale not constant";
  if (!usable_scales(*w_scale->data)) return "weight scales not finite and positive";
  const Value* w_zero = constant_input(g, *m.dq_w, 2);
  if (!w_zero && m.dq_w->inputs.size() > 2 && m.dq_w->inputs[2] >= 0) return "weight zero point not constant";
  if (w_zero && w_zero->data->dtype() != w->data->dtype()) return "weight zero point not of the weights' type";
  for (const Value* v : {w_scale, w_zero}) {
    if (v && v->data->numel() != 1 && (v->data->numel() != columns || !along_columns)) {
      return "weight scales or zero points not per column";
    }
  }
  return match_output(g, consumers, mm.outputs[0], m);
}

// DQ -> Gemm(B = DQ(8-bit constant matrix), C) -> [Relu | Clip] -> Q, y =
// x B + C or x B^T + C (alpha and beta 1): a QLinearMatMul with C as its
// int32 bias (a classifier head of a QDQ CNN).
std::string match_gemm(const Graph& g, const fb::OpT& gemm, const std::vector<int>& producers,
                       const std::vector<std::vector<int>>& consumers, Match& m) {
  const fb::GemmAttrsT a = attrs<fb::GemmAttrsT>(gemm);
  const bool has_bias = gemm.inputs.size() > 2 && gemm.inputs[2] >= 0;
  const int output_axis = a.trans_b ? 0 : 1;
  std::string why = match_matmul(g, gemm, producers, consumers, m, output_axis);
  if (!m.dq_x || !m.dq_w || !why.empty()) return why;
  if (a.trans_a || a.alpha != 1.0f || (has_bias && a.beta != 1.0f)) return "other than x W + c";
  if (!has_bias) return "";
  // C per output: [N] or [1, N] ([N, 1] is one per row, however many).
  const Value& c = g.values[static_cast<size_t>(gemm.inputs[2])];
  if (c.rank_known && !(c.shape.size() == 1 || (c.shape.size() == 2 && c.shape[0] == 1))) {
    return "bias not one per output";
  }
  const int64_t outputs = constant_input(g, *m.dq_w, 0)->data->dim(output_axis);
  return bias_problem(g, gemm, producers, outputs);
}

// Bias as int32 at scale x_scale * w_scale[c] (QLinearConv's), from a float
// constant or a dequantised one (which bias_problem accepted).
int int32_bias(Graph& g, const fb::OpT& conv, const std::vector<int>& producers, float x_scale,
               const Tensor& w_scale, int64_t out_channels) {
  const int b = conv.inputs[2];
  Tensor real;
  if (const Value* v = constant_input(g, conv, 2)) {
    real = *v->data;
  } else {
    // bias_problem checked the counts and the scale's type.
    const fb::OpT* dq = producer_of(g, producers, b, fb::OpType::DequantizeLinear);
    const std::vector<double> q = constant_input(g, *dq, 0)->data->to_doubles();
    const Tensor& s = *constant_input(g, *dq, 1)->data;
    const Value* z = constant_input(g, *dq, 2);
    const std::vector<double> zeros = z ? z->data->to_doubles() : std::vector<double>{0.0};
    real = Tensor::zeros(DType::F32, {static_cast<int64_t>(q.size())});
    for (size_t c = 0; c < q.size(); ++c) {
      const double zc = zeros[zeros.size() == 1 ? 0 : c];
      real.data<float>()[c] = static_cast<float>(s.data<float>()[s.numel() == 1 ? 0 : c] * (q[c] - zc));
    }
  }
  std::vector<int32_t> out(static_cast<size_t>(out_channels));
  const std::vector<double> values = real.to_doubles();
  for (int64_t c = 0; c < out_channels && static_cast<size_t>(c) < values.size(); ++c) {
    const double scale = double{x_scale} * w_scale.data<float>()[w_scale.numel() == 1 ? 0 : c];
    out[static_cast<size_t>(c)] = static_cast<int32_t>(std::clamp(std::nearbyint(values[static_cast<size_t>(c)] / scale),
                                                                  -2147483647.0, 2147483647.0));
  }
  return g.add_derived_constant(g.values[static_cast<size_t>(b)].name + "_int32",
                                Tensor::from_vector<int32_t>({out_channels}, out));
}

// The QLinearMatMul for a matched MatMul (match_matmul) or Gemm
// (match_gemm: its weights transposed to [K, N] when stored [N, K], its
// bias as QLinearMatMul's int32 input 8).
std::unique_ptr<fb::OpT> fold_matmul(Graph& graph, const fb::OpT& mm, const Match& m,
                                     const std::vector<int>& producers) {
  const fb::OpT& q = *graph.ops[static_cast<size_t>(m.quantize)];
  const std::string name = mm.name;
  const bool gemm = mm.type == fb::OpType::Gemm;
  const bool transposed = gemm && attrs<fb::GemmAttrsT>(mm).trans_b;
  // Read before zero_point adds constants (which may move every Value).
  const DType x_dtype = graph.values[static_cast<size_t>(m.dq_x->inputs[0])].dtype;
  const Tensor w = *graph.values[static_cast<size_t>(m.dq_w->inputs[0])].data;  // a copy: shares the bytes
  const Tensor w_scale = *graph.values[static_cast<size_t>(m.dq_w->inputs[1])].data;
  const float x_scale = graph.values[static_cast<size_t>(m.dq_x->inputs[1])].data->data<float>()[0];
  const DType y_dtype = quantized_dtype(graph, q);
  auto folded = std::make_unique<fb::OpT>();
  folded->type = fb::OpType::QLinearMatMul;
  folded->name = name;
  folded->inputs = {
      m.dq_x->inputs[0],
      m.dq_x->inputs[1],
      zero_point(graph, *m.dq_x, x_dtype, name + "/a_zero_point"),
      transposed ? graph.add_derived_constant(name + "/b_transposed", transposed_2d(w)) : m.dq_w->inputs[0],
      m.dq_w->inputs[1],
      zero_point(graph, *m.dq_w, w.dtype(), name + "/b_zero_point"),
      q.inputs[1],
      zero_point(graph, q, y_dtype, name + "/y_zero_point")};
  if (gemm && mm.inputs.size() > 2 && mm.inputs[2] >= 0) {
    folded->inputs.push_back(int32_bias(graph, mm, producers, x_scale, w_scale, w.dim(transposed ? 0 : 1)));
  }
  folded->outputs = {q.outputs[0]};
  return folded;
}
}  // namespace

Status fold_qdq(Graph& graph, PassLog& log) {
  const std::vector<int> producers = graph.producers();
  const std::vector<std::vector<int>> consumers = graph.consumers();
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (!graph.ops[i]) continue;
    const fb::OpType type = graph.ops[i]->type;
    if (type != fb::OpType::Conv && type != fb::OpType::MatMul && type != fb::OpType::Gemm) continue;
    const fb::OpT& conv = *graph.ops[i];
    const char* kind = fb::EnumNameOpType(type);
    Match m;
    const std::string why = type == fb::OpType::Conv   ? match(graph, conv, producers, consumers, m)
                            : type == fb::OpType::Gemm ? match_gemm(graph, conv, producers, consumers, m)
                                                       : match_matmul(graph, conv, producers, consumers, m);
    if (!m.dq_x || !m.dq_w) continue;
    if (!why.empty() || m.quantize < 0) {
      log.count(kPass, std::string(kind) + " left float: " + why);
      log.note(kPass, Graph::op_label(conv) + " stays float: " + why);
      continue;
    }
    if (type != fb::OpType::Conv) {
      std::unique_ptr<fb::OpT> folded = fold_matmul(graph, conv, m, producers);
      finish_fold(graph, m, std::move(folded), i);
      log.count(kPass, std::string(kind) + " -> QLinearMatMul");
      continue;
    }
    const fb::OpT& q = *graph.ops[static_cast<size_t>(m.quantize)];
    const std::string name = conv.name;
    int w_input = m.dq_w->inputs[0], w_scale_input = m.dq_w->inputs[1];
    pruned_channels_to_unit_scale(graph, name, w_input, w_scale_input);
    // Copies (they share the bytes), not references: zero_point below adds
    // constants to graph.values, which may move every Value.
    const int64_t out_channels = graph.values[static_cast<size_t>(w_input)].data->dim(0);
    const Tensor w_scale = *graph.values[static_cast<size_t>(w_scale_input)].data;
    const float x_scale = graph.values[static_cast<size_t>(m.dq_x->inputs[1])].data->data<float>()[0];
    const DType x_dtype = graph.values[static_cast<size_t>(m.dq_x->inputs[0])].dtype;  // used without a zero point
    const DType y_dtype = quantized_dtype(graph, q);
    std::vector<int> inputs = {m.dq_x->inputs[0],
                               m.dq_x->inputs[1],
                               zero_point(graph, *m.dq_x, x_dtype, name + "/x_zero_point"),
                               w_input,
                               w_scale_input,
                               zero_point(graph, *m.dq_w, DType::I8, name + "/w_zero_point"),
                               q.inputs[1],
                               zero_point(graph, q, y_dtype, name + "/y_zero_point")};
    if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
      inputs.push_back(int32_bias(graph, conv, producers, x_scale, w_scale, out_channels));
    }
    auto folded = std::make_unique<fb::OpT>();
    folded->type = fb::OpType::QLinearConv;
    folded->name = name;
    folded->inputs = inputs;
    folded->outputs = {q.outputs[0]};
    set_attrs(*folded, attrs<fb::ConvAttrsT>(conv));
    finish_fold(graph, m, std::move(folded), i);
    log.count(kPass, "Conv -> QLinearConv");
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
