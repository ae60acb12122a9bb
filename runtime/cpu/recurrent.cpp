// Optimised RNN, GRU and LSTM for the form exports use: f32, the default
// activations (Sigmoid, Tanh), no clip, every sequence full length. The input
// projection of all time steps is one sgemm before the loop (X W^T + Wb over
// seq x batch rows); each step is then one product with the packed recurrent
// weights (h R^T + Rb, bias in the epilogue) and the gate math. Other forms
// (custom activations, clip, sequence_lens shorter than the sequence) run the
// reference kernel, which follows the ONNX equations in double.
//
// Gate order is ONNX's: LSTM i, o, f, c; GRU z, r, h. GRU without
// linear_before_reset needs (r * h) R_h^T, so its R is packed in two parts:
// the z and r rows, and the h rows.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/unary_simd.hpp"
#include "runtime/ops/recurrent.hpp"

namespace mote::cpu {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

struct DirectionWeights {
  PackedMatrix w;    // W^T: [I, G*H]
  PackedMatrix r;    // R^T: [H, G*H] (GRU: only the z and r columns, [H, 2H])
  PackedMatrix r_h;  // GRU: R_h^T [H, H]
};

struct RecurrentState : KernelState {
  const void* w_data = nullptr;
  const void* r_data = nullptr;
  std::vector<DirectionWeights> directions;
};

DirectionWeights pack_direction(fb::OpType type, const RecurrentGeometry& g, const float* w, const float* r) {
  const int64_t H = g.hidden, I = g.input, G = g.gates;
  DirectionWeights d;
  d.w = pack_b(true, I, G * H, w, I);
  if (type == fb::OpType::GRU) {
    d.r = pack_b(true, H, 2 * H, r, H);
    d.r_h = pack_b(true, H, H, r + 2 * H * H, H);
  } else {
    d.r = pack_b(true, H, G * H, r, H);
  }
  return d;
}

Status recurrent_prepare(KernelContext& ctx, std::unique_ptr<KernelState>& state) {
  const Tensor& w = ctx.in(1);
  const Tensor& r = ctx.in(2);
  if (!w.raw() || !r.raw() || w.dtype() != DType::F32) return {};  // weights computed at run time
  const auto& a = attrs<fb::RecurrentAttrsT>(ctx.op);
  auto geometry = recurrent_geometry(ctx.op.type, a, ctx.in(0).shape(), w.shape(), r.shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const RecurrentGeometry& g = *geometry;
  auto s = std::make_unique<RecurrentState>();
  s->w_data = w.raw();
  s->r_data = r.raw();
  for (int64_t d = 0; d < g.directions; ++d) {
    s->directions.push_back(pack_direction(ctx.op.type, g, w.data<float>() + d * g.gates * g.hidden * g.input,
                                           r.data<float>() + d * g.gates * g.hidden * g.hidden));
  }
  state = std::move(s);
  return {};
}

bool full_length(const KernelContext& ctx, int64_t seq) {
  if (!ctx.has_input(4)) return true;
  for (int64_t len : ctx.in(4).to_int64s()) {
    if (len != seq) return false;
  }
  return true;
}

Status recurrent_run(KernelContext& ctx) {
  const fb::OpType type = ctx.op.type;
  const auto& a = attrs<fb::RecurrentAttrsT>(ctx.op);
  auto geometry = recurrent_geometry(type, a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape());
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const RecurrentGeometry& g = *geometry;
  if (ctx.in(0).dtype() != DType::F32 || !uses_default_activations(type, a, g.directions) || !full_length(ctx, g.seq)) {
    return find_reference_kernel(type)->run(ctx);
  }
  const int64_t H = g.hidden, I = g.input, G = g.gates, B = g.batch, T = g.seq;
  const bool lstm = type == fb::OpType::LSTM, gru = type == fb::OpType::GRU;
  const Tensor* bias = ctx.has_input(3) ? &ctx.in(3) : nullptr;
  const Tensor* h0 = ctx.has_input(5) ? &ctx.in(5) : nullptr;
  const Tensor* c0 = lstm && ctx.has_input(6) ? &ctx.in(6) : nullptr;
  const Tensor* peep = lstm && ctx.has_input(7) ? &ctx.in(7) : nullptr;
  Tensor* y = ctx.outputs.empty() ? nullptr : ctx.outputs[0];
  Tensor* y_h = ctx.outputs.size() > 1 ? ctx.outputs[1] : nullptr;
  Tensor* y_c = ctx.outputs.size() > 2 ? ctx.outputs[2] : nullptr;

  const auto* state = static_cast<const RecurrentState*>(ctx.state);
  const bool packed = state && state->w_data == ctx.in(1).raw() && state->r_data == ctx.in(2).raw() &&
                      static_cast<int64_t>(state->directions.size()) == g.directions;
  // Row k of X (and of the projection) is time step t of batch row b.
  auto row = [&](int64_t t, int64_t b) { return g.batch_first ? b * T + t : t * B + b; };
  auto state_at = [&](int64_t d, int64_t b) { return g.batch_first ? (b * g.directions + d) * H : (d * B + b) * H; };

  std::vector<float> xw(static_cast<size_t>(T * B * G * H)), hr(static_cast<size_t>(B * G * H));
  std::vector<float> h(static_cast<size_t>(B * H)), c(static_cast<size_t>(B * H));
  std::vector<float> gated(static_cast<size_t>(B * H)), cand(static_cast<size_t>(B * H));  // GRU
  for (int64_t d = 0; d < g.directions; ++d) {
    const bool reverse = a.direction == fb::RnnDirection::Reverse || d == 1;
    const float* wb = bias ? bias->data<float>() + d * 2 * G * H : nullptr;
    const float* rb = wb ? wb + G * H : nullptr;
    const float* p = peep ? peep->data<float>() + d * 3 * H : nullptr;
    DirectionWeights unpacked;
    if (!packed) {
      unpacked = pack_direction(type, g, ctx.in(1).data<float>() + d * G * H * I, ctx.in(2).data<float>() + d * G * H * H);
    }
    const DirectionWeights& weights = packed ? state->directions[static_cast<size_t>(d)] : unpacked;
    // Every step's input projection at once.
    sgemm(false, T * B, 1.0f, ctx.in(0).data<float>(), I, weights.w, 0.0f, xw.data(), G * H, {nullptr, wb}, ctx.pool);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        h[b * H + j] = h0 ? h0->data<float>()[state_at(d, b) + j] : 0.0f;
        c[b * H + j] = c0 ? c0->data<float>()[state_at(d, b) + j] : 0.0f;
      }
    }
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = reverse ? T - 1 - step : step;
      const int64_t recurrent_cols = gru ? 2 * H : G * H;
      sgemm(false, B, 1.0f, h.data(), H, weights.r, 0.0f, hr.data(), G * H, {nullptr, rb}, ctx.pool);
      for (int64_t b = 0; b < B; ++b) {
        const float* x = &xw[static_cast<size_t>(row(t, b) * G * H)];
        float* q = &hr[static_cast<size_t>(b * G * H)];
        float* hb = &h[static_cast<size_t>(b * H)];
        float* cb = &c[static_cast<size_t>(b * H)];
        for (int64_t k = 0; k < recurrent_cols; ++k) q[k] += x[k];
        if (type == fb::OpType::RNN) {
          unary_f32(UnaryFn::kTanh, {}, q, hb, H);
        } else if (gru) {
          unary_f32(UnaryFn::kSigmoid, {}, q, q, 2 * H);  // z, r
          for (int64_t j = 0; j < H; ++j) gated[b * H + j] = a.linear_before_reset ? hb[j] : q[H + j] * hb[j];
        } else if (!p) {
          unary_f32(UnaryFn::kSigmoid, {}, q, q, 3 * H);  // i, o, f
          unary_f32(UnaryFn::kTanh, {}, q + 3 * H, q + 3 * H, H);
          for (int64_t j = 0; j < H; ++j) cb[j] = (a.input_forget ? 1 - q[j] : q[2 * H + j]) * cb[j] + q[j] * q[3 * H + j];
          unary_f32(UnaryFn::kTanh, {}, cb, hb, H);
          for (int64_t j = 0; j < H; ++j) hb[j] *= q[H + j];
        } else {
          // Peepholes: the gates read the cell state, the output gate the new one.
          for (int64_t j = 0; j < H; ++j) {
            const float in_gate = sigmoid(q[j] + p[j] * cb[j]);
            const float forget = a.input_forget ? 1 - in_gate : sigmoid(q[2 * H + j] + p[2 * H + j] * cb[j]);
            cb[j] = forget * cb[j] + in_gate * std::tanh(q[3 * H + j]);
            hb[j] = sigmoid(q[H + j] + p[H + j] * cb[j]) * std::tanh(cb[j]);
          }
        }
      }
      if (gru) {
        // The candidate: h R_h^T + Rb_h, times r; or (r * h) R_h^T + Rb_h.
        sgemm(false, B, 1.0f, gated.data(), H, weights.r_h, 0.0f, cand.data(), H, {nullptr, rb ? rb + 2 * H : nullptr},
              ctx.pool);
        for (int64_t b = 0; b < B; ++b) {
          const float* x = &xw[static_cast<size_t>(row(t, b) * G * H)];
          const float* q = &hr[static_cast<size_t>(b * G * H)];
          float* cand_b = &cand[static_cast<size_t>(b * H)];
          for (int64_t j = 0; j < H; ++j) cand_b[j] = x[2 * H + j] + (a.linear_before_reset ? q[H + j] * cand_b[j] : cand_b[j]);
          unary_f32(UnaryFn::kTanh, {}, cand_b, cand_b, H);
          float* hb = &h[static_cast<size_t>(b * H)];
          for (int64_t j = 0; j < H; ++j) hb[j] = (1 - q[j]) * cand_b[j] + q[j] * hb[j];
        }
      }
      if (y) {
        for (int64_t b = 0; b < B; ++b) {
          const int64_t at = g.batch_first ? ((b * T + t) * g.directions + d) * H : ((t * g.directions + d) * B + b) * H;
          std::copy(&h[static_cast<size_t>(b * H)], &h[static_cast<size_t>((b + 1) * H)], y->data<float>() + at);
        }
      }
    }
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        if (y_h) y_h->data<float>()[state_at(d, b) + j] = h[b * H + j];
        if (y_c) y_c->data<float>()[state_at(d, b) + j] = c[b * H + j];
      }
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(RNN, mote::cpu::recurrent_run, mote::cpu::recurrent_prepare);
MOTE_CPU_KERNEL(GRU, mote::cpu::recurrent_run, mote::cpu::recurrent_prepare);
MOTE_CPU_KERNEL(LSTM, mote::cpu::recurrent_run, mote::cpu::recurrent_prepare);
