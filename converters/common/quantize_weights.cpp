#include "converters/common/quantize_weights.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "converters/common/qdq_match.hpp"

namespace mote::convert {
namespace {

// Rows [M, ...] of f32 weights (one per output) as symmetric int8 of `bits`
// bits (+-127 or +-63), one scale per row.
struct RowsInt8 {
  Tensor q;
  std::vector<float> scales;
};

RowsInt8 quantize_rows(const Tensor& w, int bits) {
  const float peak_q = static_cast<float>((1 << (bits - 1)) - 1);
  const int64_t m = w.dim(0), per = w.numel() / m;
  RowsInt8 out{Tensor::zeros(DType::I8, w.shape()), std::vector<float>(static_cast<size_t>(m))};
  for (int64_t r = 0; r < m; ++r) {
    const float* row = w.data<float>() + r * per;
    float peak = 0;
    for (int64_t k = 0; k < per; ++k) peak = std::max(peak, std::fabs(row[k]));
    const float s = peak > 0 ? peak / peak_q : 1.0f;
    out.scales[static_cast<size_t>(r)] = s;
    for (int64_t k = 0; k < per; ++k) {
      out.q.data<int8_t>()[r * per + k] =
          static_cast<int8_t>(std::clamp(std::nearbyint(row[k] / s), -peak_q, peak_q));
    }
  }
  return out;
}

// The weight constants for `q` (laid out as `w_int8`: the rows, or for a
// QLinearMatMul their transpose) and, when the op has one (value `bias`,
// one f32 per row), the bias as int32 in units of x_scale * scale[row].
QuantizedWeights add_weights(Graph& graph, const std::string& base, Tensor w_int8, const std::vector<float>& scales,
                             int bias, float x_scale) {
  const auto m = static_cast<int64_t>(scales.size());
  QuantizedWeights q;
  q.w = graph.add_derived_constant(base + "_int8", std::move(w_int8));
  q.w_scale = graph.add_derived_constant(base + "_scale", Tensor::from_vector<float>({m}, scales));
  q.w_zero = graph.add_derived_constant(base + "_zero_point", Tensor::from_vector<int8_t>({1}, {0}));
  if (bias >= 0) {
    const Value& bv = graph.values[static_cast<size_t>(bias)];
    std::vector<int32_t> b(static_cast<size_t>(m));
    for (int64_t r = 0; r < m; ++r) {
      const double v = bv.data->data<float>()[r] / (double{x_scale} * scales[static_cast<size_t>(r)]);
      b[static_cast<size_t>(r)] = static_cast<int32_t>(std::clamp(std::nearbyint(v), -2147483647.0, 2147483647.0));
    }
    const std::string name = bv.name + "_int32";  // a copy: the constant below may move every Value
    q.bias = graph.add_derived_constant(name, Tensor::from_vector<int32_t>({m}, b));
  }
  return q;
}

int bias_input(const fb::OpT& op) { return op.inputs.size() > 2 && op.inputs[2] >= 0 ? op.inputs[2] : -1; }

}  // namespace

// A Conv's QLinearConv weights: per output channel (W's first axis).
QuantizedWeights quantize_conv_weights(Graph& graph, const fb::OpT& conv, float x_scale, int bits) {
  const Value& wv = graph.values[static_cast<size_t>(conv.inputs[1])];
  RowsInt8 rows = quantize_rows(*wv.data, bits);
  const std::string base = wv.name;  // a copy: add_weights may move every Value
  return add_weights(graph, base, std::move(rows.q), rows.scales, bias_input(conv), x_scale);
}

// A Gemm's or MatMul's QLinearMatMul weights [K, N]: per column (output),
// from W stored [N, K] (a Gemm's x W^T) or [K, N].
QuantizedWeights quantize_linear_weights(Graph& graph, const fb::OpT& op, float x_scale, int bits) {
  const Value& wv = graph.values[static_cast<size_t>(op.inputs[1])];
  const bool rows_stored = op.type == fb::OpType::Gemm && attrs<fb::GemmAttrsT>(op).trans_b;
  const Tensor rows_f32 = rows_stored ? *wv.data : qdq::transposed_2d(*wv.data);
  RowsInt8 rows = quantize_rows(rows_f32, bits);
  const std::string base = wv.name;  // a copy: add_weights may move every Value
  return add_weights(graph, base, qdq::transposed_2d(rows.q), rows.scales, bias_input(op), x_scale);
}

}  // namespace mote::convert
