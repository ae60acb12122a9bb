// The pieces of QDQ pattern matching that the folds share (fold_qdq.cpp:
// Conv and MatMul; fold_qdq_elementwise.cpp: Add, Mul, Concat, pools and the
// ops that only move bytes): finding a quantised tensor's DequantizeLinear,
// the [Relu | Clip] -> QuantizeLinear after a float op, and putting the
// folded op in the float op's place.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "converters/common/graph.hpp"

namespace mote::convert::qdq {

// Input i of op when it is a constant, else nullptr.
const Value* constant_input(const Graph& g, const fb::OpT& op, size_t i);

// The op writing value v when it is of `type`, else nullptr.
const fb::OpT* producer_of(const Graph& g, const std::vector<int>& producers, int v, fb::OpType type);

// The only op reading v, when v is no graph output; else -1.
int sole_reader(const Graph& g, const std::vector<std::vector<int>>& consumers, int v);

// Scales the int8 kernels can use, every one (a damaged file may hold
// anything, and a NaN scale would reach an int conversion in the folds and
// the kernels); with zero_ok, weight scales of exactly 0 too (a pruned
// channel, which fold_qdq replaces).
bool usable_scales(const Tensor& scales, bool zero_ok = false);

// A per-tensor Q/DQ: constant one-element usable f32 scale, constant (or
// absent) 8-bit zero point.
bool per_tensor_8bit(const Graph& g, const fb::OpT& q);

// The quantised input x_q -> DequantizeLinear: per tensor, 8-bit, its type
// known. Why it does not fit, or empty.
std::string match_input(const Graph& g, const fb::OpT& dq_x);

// What a fold matched around a float op.
struct Match {
  const fb::OpT* dq_x = nullptr;  // the first input's DequantizeLinear
  const fb::OpT* dq_w = nullptr;  // Conv's and MatMul's weights'
  int activation = -1;            // op index of a Relu/Clip between the op and Q
  int quantize = -1;              // op index of the QuantizeLinear
};

// The float output's chain: [Relu | Clip] -> QuantizeLinear (per tensor,
// 8-bit), each the sole reader of what it reads; sets m.activation (only
// when allow_activation) and m.quantize. Why it does not fold, or empty.
std::string match_output(const Graph& g, const std::vector<std::vector<int>>& consumers, int output, Match& m,
                         bool allow_activation = true);

// A Q's or DQ's zero point input: its own, or a new constant 0 of `dtype`.
int zero_point(Graph& g, const fb::OpT& q, DType dtype, const std::string& name);

// The type a QuantizeLinear writes: its zero point's, else its attribute's.
DType quantized_dtype(const Graph& graph, const fb::OpT& q);

// The type a DequantizeLinear reads (match_input made sure it is known).
DType dequantized_dtype(const Graph& graph, const fb::OpT& dq);

// A 2-D tensor transposed (any element type): a Gemm's [N, K] weights as
// QLinearMatMul's [K, N].
Tensor transposed_2d(const Tensor& t);

// Puts the folded op in the float op's place (op index i: its inputs exist
// there, and y_q's readers come later), the matched activation fused into
// it, and removes the activation and the QuantizeLinear.
void finish_fold(Graph& graph, const Match& m, std::unique_ptr<fb::OpT> folded, size_t i);

}  // namespace mote::convert::qdq
