// RNN, GRU and LSTM: shape checks and output shapes (recurrent.hpp).
#include "runtime/ops/recurrent.hpp"

#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"

namespace mote {

Shape RecurrentGeometry::y_shape() const {
  return batch_first ? Shape{batch, seq, directions, hidden} : Shape{seq, directions, batch, hidden};
}

Shape RecurrentGeometry::state_shape() const {
  return batch_first ? Shape{batch, directions, hidden} : Shape{directions, batch, hidden};
}

std::vector<fb::RnnActivation> default_recurrent_activations(fb::OpType type) {
  if (type == fb::OpType::GRU) return {fb::RnnActivation::Sigmoid, fb::RnnActivation::Tanh};
  if (type == fb::OpType::LSTM) return {fb::RnnActivation::Sigmoid, fb::RnnActivation::Tanh, fb::RnnActivation::Tanh};
  return {fb::RnnActivation::Tanh};
}

bool uses_default_activations(fb::OpType type, const fb::RecurrentAttrsT& a, int64_t directions) {
  if (!a.activation_alpha.empty() || !a.activation_beta.empty() || a.clip > 0) return false;
  if (a.activations.empty()) return true;
  const std::vector<fb::RnnActivation> per = default_recurrent_activations(type);
  if (a.activations.size() != per.size() * static_cast<size_t>(directions)) return false;
  for (size_t i = 0; i < a.activations.size(); ++i) {
    if (a.activations[i] != per[i % per.size()]) return false;
  }
  return true;
}

int64_t recurrent_gates(fb::OpType type) {
  return type == fb::OpType::LSTM ? 4 : type == fb::OpType::GRU ? 3 : 1;
}

Result<RecurrentGeometry> recurrent_geometry(fb::OpType type, const fb::RecurrentAttrsT& a, const Shape& x,
                                             const Shape& w, const Shape& r) {
  RecurrentGeometry g;
  g.gates = recurrent_gates(type);
  g.directions = a.direction == fb::RnnDirection::Bidirectional ? 2 : 1;
  g.batch_first = a.layout == 1;
  if (x.size() != 3) return invalid_argument("X " + shape_to_string(x) + " must be 3-D");
  g.seq = g.batch_first ? x[1] : x[0];
  g.batch = g.batch_first ? x[0] : x[1];
  g.input = x[2];
  g.hidden = a.hidden_size > 0 ? a.hidden_size : (w.size() == 3 ? w[1] / g.gates : 0);
  const Shape want_w = {g.directions, g.gates * g.hidden, g.input};
  const Shape want_r = {g.directions, g.gates * g.hidden, g.hidden};
  if (w != want_w || r != want_r) {
    return invalid_argument("W " + shape_to_string(w) + " and R " + shape_to_string(r) + " must be " +
                            shape_to_string(want_w) + " and " + shape_to_string(want_r));
  }
  return g;
}

namespace {

Status infer_recurrent(ShapeContext& ctx) {
  const auto& a = attrs<fb::RecurrentAttrsT>(ctx.op);
  for (size_t i : {0, 1, 2, 3, 5, 6, 7}) {
    if (ctx.has_input(i) && ctx.dtype(i) != DType::F32) {
      return ctx.fail("input " + std::to_string(i) + " has dtype " + dtype_name(ctx.dtype(i)) + "; supported: f32");
    }
  }
  auto g = recurrent_geometry(ctx.op.type, a, ctx.shape(0), ctx.shape(1), ctx.shape(2));
  if (!g.ok()) return ctx.fail(g.status().message());
  if (ctx.has_input(3) && ctx.shape(3) != Shape{g->directions, 2 * g->gates * g->hidden}) {
    return ctx.fail("B " + shape_to_string(ctx.shape(3)) + " must be [directions, 2 * gates * hidden]");
  }
  if (ctx.has_input(4) && (ctx.shape(4) != Shape{g->batch} || (ctx.dtype(4) != DType::I32 && ctx.dtype(4) != DType::I64))) {
    return ctx.fail("sequence_lens " + shape_to_string(ctx.shape(4)) + " must be i32 [batch]");
  }
  for (size_t i : {5, 6}) {
    if (ctx.has_input(i) && ctx.shape(i) != g->state_shape()) {
      return ctx.fail("initial state " + shape_to_string(ctx.shape(i)) + " must be " + shape_to_string(g->state_shape()));
    }
  }
  if (ctx.has_input(7) && ctx.shape(7) != Shape{g->directions, 3 * g->hidden}) {
    return ctx.fail("P " + shape_to_string(ctx.shape(7)) + " must be [directions, 3 * hidden]");
  }
  ctx.set_output(0, DType::F32, g->y_shape());
  for (size_t i = 1; i < ctx.op.outputs.size(); ++i) ctx.set_output(i, DType::F32, g->state_shape());
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(RNN, {.min_inputs = 3, .max_inputs = 6, .min_outputs = 1, .max_outputs = 2, .infer = mote::infer_recurrent});
MOTE_OP_DEF(GRU, {.min_inputs = 3, .max_inputs = 6, .min_outputs = 1, .max_outputs = 2, .infer = mote::infer_recurrent});
MOTE_OP_DEF(LSTM, {.min_inputs = 3, .max_inputs = 8, .min_outputs = 1, .max_outputs = 3, .infer = mote::infer_recurrent});
