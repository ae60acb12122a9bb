// Small helpers several op mappers share.
#pragma once

#include <string>
#include <vector>

#include "converters/onnx/node_context.hpp"

namespace mote::convert {

// ONNX auto_pad strings; records an error for an unknown one.
fb::AutoPad parse_auto_pad(NodeContext& ctx);

// x cast to `to` into a new temporary named `name` (or into `out`).
int cast(NodeContext& ctx, int x, DType to, const std::string& name, int out = -1);

// The output of a two-input op `type` on a and b, a new temporary named
// `name` (or `out`).
int binary(NodeContext& ctx, fb::OpType type, int a, int b, const std::string& name, int out = -1);

// Conv and ConvTranspose attributes as ONNX spells them (kernel_shape,
// strides, pads, dilations, group, auto_pad); ConvTranspose adds its own.
fb::ConvAttrsT onnx_conv_attrs(NodeContext& ctx);

// A DequantizeLinear of x along `axis` (zero_point may be -1, omitted);
// returns the f32 value it writes.
int dequantize(NodeContext& ctx, int x, int scale, int zero_point, int64_t axis, const std::string& name);

// Pooling windows as ONNX spells them (kernel_shape, strides, pads,
// dilations, auto_pad, ceil_mode); MaxPool, AveragePool, LpPool and
// onnxruntime's QLinearAveragePool; each op adds its own.
fb::PoolAttrsT onnx_pool_attrs(NodeContext& ctx);

// Drops trailing omitted (-1) optional inputs, never the first slot: a
// mapper whose required input 0 is missing (input() recorded the error)
// must not pop an empty list (found by fuzzing).
void trim_omitted(std::vector<int>& inputs);

// The node's inputs in order, omitted ones as -1, trailing omitted ones
// dropped (Mote ops count present inputs).
std::vector<int> direct_inputs(NodeContext& ctx);

// Emits `type` reading direct_inputs and writing the used outputs: the
// mapping of ops whose Mote form is the ONNX one.
Status map_direct(NodeContext& ctx, fb::OpType type);

// The same with the op's attribute table.
template <class Attrs>
Status map_direct(NodeContext& ctx, fb::OpType type, Attrs attrs);

// A two-input op with numpy broadcasting (Add, Equal, And...). Opsets 1-6
// broadcast only on request (broadcast=1), aligning B with A from 'axis';
// that is rewritten to numpy's trailing alignment by giving B trailing
// 1-dims.
Status map_broadcasting_binary(NodeContext& ctx, fb::OpType type);

// The node's outputs up to its last named one: trailing omitted optional
// outputs are left off, so the Mote op does not compute them.
std::vector<int> used_outputs(NodeContext& ctx);

template <class Attrs>
Status map_direct(NodeContext& ctx, fb::OpType type, Attrs attrs) {
  ctx.emit(type, direct_inputs(ctx), used_outputs(ctx), std::move(attrs));
  return ctx.status();
}

}  // namespace mote::convert
