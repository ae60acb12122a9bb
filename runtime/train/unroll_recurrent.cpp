// ONNX's equations, gate order i, o, f, c (LSTM), z, r, h (GRU):
//   LSTM: i = s(x Wi + h Ri + Pi c + b), f = s(... + Pf c + b), g = t(x Wc + h Rc + b)
//         c' = f c + i g (f = 1 - i with input_forget), o = s(x Wo + h Ro + Po c' + b), h' = o t(c')
//   GRU:  z = s(x Wz + h Rz + b), r = s(x Wr + h Rr + b)
//         n = t(x Wh + (r h) Rh + Rbh + Wbh), or t(x Wh + r (h Rh + Rbh) + Wbh) with linear_before_reset
//         h' = (1 - z) n + z h
//   RNN:  h' = t(x Wi + h Ri + Wbi + Rbi)
// (s = Sigmoid, t = Tanh; "x W" is x W^T with W's rows per gate.) The input
// projection of every step is one MatMul before the loop.
#include "runtime/train/unroll_recurrent.hpp"

#include <string>

#include "runtime/core/registry.hpp"
#include "runtime/ops/recurrent.hpp"

namespace mote {
namespace {

// Builds one op's unrolled form.
class Unroller {
 public:
  Unroller(TrainGraph& g, const fb::OpT& op, const RecurrentGeometry& geo)
      : g_(g), op_(op), a_(attrs<fb::RecurrentAttrsT>(op)), geo_(geo), H_(geo.hidden) {}

  // Per direction: the hidden states of every step in time order, the last
  // hidden state and (LSTM) the last cell state.
  struct Direction {
    std::vector<int> hs;
    int h_last = -1, c_last = -1;
  };

  Direction run(const std::vector<int>& in, int x, int64_t d) {
    const bool lstm = op_.type == fb::OpType::LSTM, gru = op_.type == fb::OpType::GRU;
    const int64_t G = geo_.gates, B = geo_.batch, T = geo_.seq;
    const int w = g_.reshape(row(in[1], d), {G * H_, geo_.input});
    const int r = g_.reshape(row(in[2], d), {G * H_, H_});
    const int bias = in.size() > 3 && in[3] >= 0 ? g_.reshape(row(in[3], d), {2 * G * H_}) : -1;
    // x W^T + Wb for every step at once: [T, B, G*H].
    int xw = g_.op1(fb::OpType::MatMul, {x, g_.transpose_last2(w)});
    if (bias >= 0) xw = g_.add(xw, slice(bias, 0, 0, G * H_));
    const int rb = bias >= 0 ? slice(bias, 0, G * H_, 2 * G * H_) : -1;
    const int rt = g_.transpose_last2(r);
    int h = initial(in, 5, d), c = lstm ? initial(in, 6, d) : -1;
    const int peep = lstm && in.size() > 7 && in[7] >= 0 ? g_.reshape(row(in[7], d), {3 * H_}) : -1;
    const bool reverse = a_.direction == fb::RnnDirection::Reverse || d == 1;

    Direction out;
    out.hs.assign(static_cast<size_t>(T), -1);
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = reverse ? T - 1 - step : step;
      const int xt = g_.reshape(slice(xw, 0, t, t + 1), {B, G * H_});
      if (gru) {
        // z and r from h R^T; the candidate's h Rh^T waits for r.
        int hr = g_.op1(fb::OpType::MatMul, {h, slice(rt, 1, 0, 2 * H_)});
        if (rb >= 0) hr = g_.add(hr, slice(rb, 0, 0, 2 * H_));
        const int zr = g_.op1(fb::OpType::Sigmoid, {g_.add(slice(xt, 1, 0, 2 * H_), hr)});
        const int z = slice(zr, 1, 0, H_), reset = slice(zr, 1, H_, 2 * H_);
        const int rh_t = slice(rt, 1, 2 * H_, 3 * H_), rbh = rb >= 0 ? slice(rb, 0, 2 * H_, 3 * H_) : -1;
        int cand;
        if (a_.linear_before_reset) {
          int hn = g_.op1(fb::OpType::MatMul, {h, rh_t});
          if (rbh >= 0) hn = g_.add(hn, rbh);
          cand = g_.mul(reset, hn);
        } else {
          cand = g_.op1(fb::OpType::MatMul, {g_.mul(reset, h), rh_t});
          if (rbh >= 0) cand = g_.add(cand, rbh);
        }
        const int n = g_.op1(fb::OpType::Tanh, {g_.add(slice(xt, 1, 2 * H_, 3 * H_), cand)});
        // (1 - z) n + z h = n + z (h - n)
        h = g_.add(n, g_.mul(z, g_.sub(h, n)));
      } else {
        int gates = g_.add(xt, g_.op1(fb::OpType::MatMul, {h, rt}));
        if (rb >= 0) gates = g_.add(gates, rb);
        if (!lstm) {
          h = g_.op1(fb::OpType::Tanh, {gates});
        } else {
          auto gate = [&](int k) { return slice(gates, 1, k * H_, (k + 1) * H_); };
          auto peephole = [&](int pre, int k, int cell) {
            return peep >= 0 ? g_.add(pre, g_.mul(slice(peep, 0, k * H_, (k + 1) * H_), cell)) : pre;
          };
          const int i = g_.op1(fb::OpType::Sigmoid, {peephole(gate(0), 0, c)});
          const int f = a_.input_forget ? g_.sub(g_.scalar(1.0), i) : g_.op1(fb::OpType::Sigmoid, {peephole(gate(2), 2, c)});
          const int cand = g_.op1(fb::OpType::Tanh, {gate(3)});
          c = g_.add(g_.mul(f, c), g_.mul(i, cand));
          const int o = g_.op1(fb::OpType::Sigmoid, {peephole(gate(1), 1, c)});
          h = g_.mul(o, g_.op1(fb::OpType::Tanh, {c}));
        }
      }
      out.hs[static_cast<size_t>(t)] = h;
    }
    out.h_last = h;
    out.c_last = c;
    return out;
  }

 private:
  // [start, end) of `x` along `axis`.
  int slice(int x, int64_t axis, int64_t start, int64_t end) {
    return g_.op1(fb::OpType::Slice, {x, g_.i64s({start}), g_.i64s({end}), g_.i64s({axis})});
  }
  // Direction d of a [directions, ...] tensor (still with that axis, size 1).
  int row(int x, int64_t d) { return slice(x, 0, d, d + 1); }
  // initial_h / initial_c of direction d as [B, H], or zeros.
  int initial(const std::vector<int>& in, size_t index, int64_t d) {
    if (index >= in.size() || in[index] < 0) {
      const std::string name = op_.name + (index == 5 ? "_initial_h" : "_initial_c") + std::to_string(d);
      return g_.constant(name, Tensor::zeros(g_.float_dtype(), {geo_.batch, H_}));
    }
    const int s = geo_.batch_first ? g_.transpose(in[index], {1, 0, 2}) : in[index];
    return g_.reshape(row(s, d), {geo_.batch, H_});
  }

  TrainGraph& g_;
  const fb::OpT& op_;
  const fb::RecurrentAttrsT& a_;
  const RecurrentGeometry& geo_;
  const int64_t H_;
};

}  // namespace

Result<std::vector<int>> unroll_recurrent(TrainGraph& g, const fb::OpT& op, const std::vector<int>& inputs,
                                          int num_outputs) {
  const std::string label = std::string(op_type_name(op.type)) + " '" + op.name + "'";
  const auto& a = attrs<fb::RecurrentAttrsT>(op);
  auto geometry = recurrent_geometry(op.type, a, g.shape(inputs[0]), g.shape(inputs[1]), g.shape(inputs[2]));
  if (!geometry.ok()) return invalid_argument(label + ": " + geometry.status().message());
  const RecurrentGeometry& geo = *geometry;
  if (!uses_default_activations(op.type, a, geo.directions)) {
    return unsupported(label + ": training needs the default gate functions without clip (a recurrent op is unrolled "
                               "into per-step ops, which have gradients)");
  }
  if (inputs.size() > 4 && inputs[4] >= 0) {
    return unsupported(label + ": training does not take sequence_lens yet; give every sequence full length");
  }
  Unroller unroller(g, op, geo);
  // X as [T, B, I].
  const int x = geo.batch_first ? g.transpose(inputs[0], {1, 0, 2}) : inputs[0];
  std::vector<int> ys, hs, cs;
  for (int64_t d = 0; d < geo.directions; ++d) {
    Unroller::Direction dir = unroller.run(inputs, x, d);
    std::vector<int> steps;
    for (int h : dir.hs) steps.push_back(g.op1(fb::OpType::Unsqueeze, {h, g.i64s({0, 1})}));  // [1, 1, B, H]
    fb::AxisAttrsT time;
    time.axis = 0;
    ys.push_back(steps.size() == 1 ? steps[0] : g.op1(fb::OpType::Concat, steps, time));  // [T, 1, B, H]
    hs.push_back(g.op1(fb::OpType::Unsqueeze, {dir.h_last, g.i64s({0})}));
    if (dir.c_last >= 0) cs.push_back(g.op1(fb::OpType::Unsqueeze, {dir.c_last, g.i64s({0})}));
  }
  auto joined = [&](const std::vector<int>& parts, int64_t axis) {
    if (parts.size() == 1) return parts[0];
    fb::AxisAttrsT along;
    along.axis = axis;
    return g.op1(fb::OpType::Concat, parts, along);
  };
  // [T, dirs, B, H] and [dirs, B, H], or batch first.
  std::vector<int> outs = {joined(ys, 1), joined(hs, 0)};
  if (!cs.empty()) outs.push_back(joined(cs, 0));
  if (geo.batch_first) {
    outs[0] = g.transpose(outs[0], {2, 0, 1, 3});
    for (size_t i = 1; i < outs.size(); ++i) outs[i] = g.transpose(outs[i], {1, 0, 2});
  }
  outs.resize(static_cast<size_t>(num_outputs), -1);
  MOTE_RETURN_IF_ERROR(g.status());
  return outs;
}

}  // namespace mote
