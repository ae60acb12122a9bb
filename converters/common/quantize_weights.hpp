// Symmetric int8 weights of the Convs, Gemms and MatMuls --quantize int8
// rewrites (quantize_int8.cpp): one scale per output (W's rows, +-127, or
// +-63 with 7-bit weights), the bias as int32 in units of x_scale * scale.
#pragma once

#include "converters/common/graph.hpp"

namespace mote::convert {

// A QLinearConv's or QLinearMatMul's weight inputs (3-5) and bias (8).
struct QuantizedWeights {
  int w, w_scale, w_zero, bias = -1;
};

// A Conv's QLinearConv weights: per output channel (W's first axis).
QuantizedWeights quantize_conv_weights(Graph& graph, const fb::OpT& conv, float x_scale, int bits);

// A Gemm's or MatMul's QLinearMatMul weights [K, N]: per column (output),
// from W stored [N, K] (a Gemm's x W^T) or [K, N].
QuantizedWeights quantize_linear_weights(Graph& graph, const fb::OpT& op, float x_scale, int bits);

}  // namespace mote::convert
