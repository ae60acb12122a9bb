// Losses as inference ops: NegativeLogLikelihoodLoss, and
// SoftmaxCrossEntropyLoss as LogSoftmax over the class axis followed by
// NegativeLogLikelihoodLoss (ONNX defines it so; its optional second output
// is that LogSoftmax).
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status loss_attrs(NodeContext& ctx, fb::LossAttrsT& a) {
  const std::string reduction = ctx.attr_string("reduction", "mean");
  if (reduction == "mean") {
    a.reduction = fb::LossReduction::Mean;
  } else if (reduction == "sum") {
    a.reduction = fb::LossReduction::Sum;
  } else if (reduction == "none") {
    a.reduction = fb::LossReduction::None;
  } else {
    return ctx.invalid("unknown reduction '" + reduction + "' (mean, sum or none)");
  }
  a.has_ignore_index = ctx.has_attr("ignore_index");
  a.ignore_index = ctx.attr_int("ignore_index", 0);
  return {};
}

std::vector<int> loss_inputs(NodeContext& ctx, int scores) {
  std::vector<int> inputs = {scores, ctx.input(1)};
  if (ctx.input_count() > 2 && ctx.has_input(2)) inputs.push_back(ctx.input(2));
  return inputs;
}

Status map_nll_loss(NodeContext& ctx) {
  fb::LossAttrsT a;
  MOTE_RETURN_IF_ERROR(loss_attrs(ctx, a));
  ctx.emit(fb::OpType::NegativeLogLikelihoodLoss, loss_inputs(ctx, ctx.input(0)), {ctx.output(0)}, a);
  return ctx.status();
}

Status map_softmax_cross_entropy(NodeContext& ctx) {
  fb::LossAttrsT a;
  MOTE_RETURN_IF_ERROR(loss_attrs(ctx, a));
  fb::AxisAttrsT classes;
  classes.axis = 1;
  const int log_prob = ctx.has_output(1) ? ctx.output(1) : ctx.temp("log_prob");
  ctx.emit(fb::OpType::LogSoftmax, {ctx.input(0)}, {log_prob}, classes);
  ctx.emit(fb::OpType::NegativeLogLikelihoodLoss, loss_inputs(ctx, log_prob), {ctx.output(0)}, a);
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(NegativeLogLikelihoodLoss, map_nll_loss);
MOTE_ONNX_OP(SoftmaxCrossEntropyLoss, map_softmax_cross_entropy);

}  // namespace mote::convert
