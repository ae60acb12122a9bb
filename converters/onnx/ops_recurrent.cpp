// RNN, GRU and LSTM map one to one; activation names become RnnActivation.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Result<fb::RnnActivation> activation(NodeContext& ctx, const std::string& name) {
  static const std::pair<const char*, fb::RnnActivation> kNames[] = {
      {"Sigmoid", fb::RnnActivation::Sigmoid}, {"Tanh", fb::RnnActivation::Tanh},
      {"Relu", fb::RnnActivation::Relu}, {"LeakyRelu", fb::RnnActivation::LeakyRelu},
      {"HardSigmoid", fb::RnnActivation::HardSigmoid}, {"Affine", fb::RnnActivation::Affine},
      {"ScaledTanh", fb::RnnActivation::ScaledTanh}, {"ThresholdedRelu", fb::RnnActivation::ThresholdedRelu},
      {"Elu", fb::RnnActivation::Elu}, {"Softsign", fb::RnnActivation::Softsign},
      {"Softplus", fb::RnnActivation::Softplus},
  };
  for (const auto& [n, kind] : kNames) {
    if (name == n) return kind;
  }
  return ctx.unsupported("activation '" + name + "'");
}

template <fb::OpType kType>
Status map_recurrent(NodeContext& ctx) {
  fb::RecurrentAttrsT a;
  a.hidden_size = ctx.attr_int("hidden_size", 0);
  a.layout = ctx.attr_int("layout", 0);
  a.clip = ctx.attr_float("clip", 0.0f);
  a.linear_before_reset = ctx.attr_int("linear_before_reset", 0) != 0;
  a.input_forget = ctx.attr_int("input_forget", 0) != 0;
  const std::string direction = ctx.attr_string("direction", "forward");
  if (direction == "forward") {
    a.direction = fb::RnnDirection::Forward;
  } else if (direction == "reverse") {
    a.direction = fb::RnnDirection::Reverse;
  } else if (direction == "bidirectional") {
    a.direction = fb::RnnDirection::Bidirectional;
  } else {
    return ctx.invalid("unknown direction '" + direction + "'");
  }
  for (const std::string& name : ctx.attr_strings("activations")) {
    MOTE_ASSIGN_OR_RETURN(fb::RnnActivation kind, activation(ctx, name));
    a.activations.push_back(kind);
  }
  a.activation_alpha = ctx.attr_floats("activation_alpha");
  a.activation_beta = ctx.attr_floats("activation_beta");
  return map_direct(ctx, kType, a);
}

}  // namespace

MOTE_ONNX_OP(RNN, map_recurrent<fb::OpType::RNN>);
MOTE_ONNX_OP(GRU, map_recurrent<fb::OpType::GRU>);
MOTE_ONNX_OP(LSTM, map_recurrent<fb::OpType::LSTM>);

}  // namespace mote::convert
