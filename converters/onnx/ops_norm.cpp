// BatchNormalization, InstanceNormalization, LayerNormalization,
// RMSNormalization, LRN.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

// BatchNormalization across opsets: 1-6 carry is_test and spatial, 7-8
// spatial, 9+ neither; 14 adds training_mode, which alone gives the extra
// outputs (running mean and variance) a meaning at inference.
Status map_batch_norm(NodeContext& ctx) {
  if (ctx.opset() < 9 && ctx.attr_int("spatial", 1) != 1) {
    return ctx.unsupported("spatial=0 (per-activation statistics) is not supported");
  }
  fb::NormAttrsT a;
  a.epsilon = ctx.attr_float("epsilon", 1e-5f);
  a.momentum = ctx.attr_float("momentum", 0.9f);
  a.training_mode = ctx.opset() >= 14 && ctx.attr_int("training_mode", 0) != 0;
  std::vector<int> inputs;
  for (size_t i = 0; i < 5; ++i) inputs.push_back(ctx.input(i));
  std::vector<int> outputs = a.training_mode ? used_outputs(ctx) : std::vector<int>{ctx.output(0)};
  ctx.emit(fb::OpType::BatchNormalization, inputs, outputs, a);
  return ctx.status();
}

Status map_instance_norm(NodeContext& ctx) {
  fb::NormAttrsT a;
  a.epsilon = ctx.attr_float("epsilon", 1e-5f);
  ctx.emit(fb::OpType::InstanceNormalization, {ctx.input(0), ctx.input(1), ctx.input(2)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_layer_norm(NodeContext& ctx) {
  fb::NormAttrsT a;
  a.epsilon = ctx.attr_float("epsilon", 1e-5f);
  a.axis = ctx.attr_int("axis", -1);
  // stash_type selects the precision of Mean and InvStdDev; Mote computes
  // them in f32 whatever it says, which is its default (1 = FLOAT).
  std::vector<int> inputs = {ctx.input(0), ctx.input(1)};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::LayerNormalization, inputs, used_outputs(ctx), a);
  return ctx.status();
}

// stash_type: as LayerNormalization's, Mote takes the mean of squares in
// f32 or better whatever it says.
Status map_rms_norm(NodeContext& ctx) {
  fb::NormAttrsT a;
  a.epsilon = ctx.attr_float("epsilon", 1e-5f);
  a.axis = ctx.attr_int("axis", -1);
  ctx.emit(fb::OpType::RMSNormalization, {ctx.input(0), ctx.input(1)}, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_lrn(NodeContext& ctx) {
  fb::LrnAttrsT a;
  a.alpha = ctx.attr_float("alpha", 0.0001f);
  a.beta = ctx.attr_float("beta", 0.75f);
  a.bias = ctx.attr_float("bias", 1.0f);
  a.size = ctx.attr_int("size", 0);
  ctx.emit(fb::OpType::LRN, {ctx.input(0)}, {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(BatchNormalization, map_batch_norm);
MOTE_ONNX_OP(LRN, map_lrn);
MOTE_ONNX_OP(RMSNormalization, map_rms_norm);
MOTE_ONNX_OP(InstanceNormalization, map_instance_norm);
MOTE_ONNX_OP(LayerNormalization, map_layer_norm);

}  // namespace mote::convert
