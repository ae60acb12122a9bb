// @mote bindings=8 push=32
// RNN, GRU and LSTM (ONNX semantics, default gate functions) over a whole
// sequence: one workgroup per (direction, batch row) walks the time steps,
// each invocation owning hidden units lid, lid + local, ... The hidden state
// lives in shared memory, in two buffers taking turns: a step reads one and
// writes the other, so one barrier per step (two for GRU) keeps the reads
// of a step before the writes of the next (barriers are what a CPU driver
// like lavapipe pays most for). The input projections x W^T of every step come
// precomputed by one matmul.comp dispatch: xw [directions, rows, G * H], the
// rows in X's own order (t * batch + b, or b * seq + t when batch first).
//
// Gate order is ONNX's: LSTM i, o, f, c; GRU z, r, h. CELL: 0 RNN, 1 GRU,
// 2 LSTM. Biases: Wb and Rb of a gate add up, except GRU's Rb_h, which
// linear_before_reset multiplies by r with h R_h^T.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 3) const int CELL = 0;

// Hidden units at most, and per invocation (the host checks both).
#define MAX_HIDDEN 1024
#define MAX_PER 8

TENSOR_RO(0, xw)
TENSOR_RO(1, r_w)
TENSOR_RO(2, bias)
TENSOR_RO(3, h0)
TENSOR_RO(4, c0)
TENSOR_WO(5, y)
TENSOR_WO(6, y_h)
TENSOR_WO(7, y_c)

layout(push_constant) uniform Push {
  uint seq;
  uint batch;
  uint hidden;
  uint dirs;
  uint reverse;      // the single direction runs backwards
  uint batch_first;  // layout 1
  uint flags;        // 1 bias, 2 h0, 4 c0, 8 y, 16 y_h, 32 y_c, 64 linear_before_reset, 128 input_forget
  uint pad;
} p;

shared float h_sh[2][MAX_HIDDEN];  // [step parity][unit]
shared float rh_sh[MAX_HIDDEN];  // GRU without linear_before_reset: r * h

bool flag(uint f) { return (p.flags & f) != 0u; }
float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

// Offset of (direction d, batch row b) in Y_h, Y_c, initial_h, initial_c.
uint state_at(uint d, uint b) { return p.batch_first != 0u ? (b * p.dirs + d) * p.hidden : (d * p.batch + b) * p.hidden; }

// sum_k v[k] * R[d, row, k] for the shared vector `h_sh[cur]` or `rh_sh`.
float dot_h(uint cur, uint d, uint gh, uint row) {
  uint base = (d * gh + row) * p.hidden;
  float s = 0.0;
  for (uint k = 0u; k < p.hidden; ++k) s += h_sh[cur][k] * LOAD(r_w, base + k);
  return s;
}
float dot_rh(uint d, uint gh, uint row) {
  uint base = (d * gh + row) * p.hidden;
  float s = 0.0;
  for (uint k = 0u; k < p.hidden; ++k) s += rh_sh[k] * LOAD(r_w, base + k);
  return s;
}

void main() {
  const uint H = p.hidden, B = p.batch, T = p.seq;
  const uint G = CELL == 2 ? 4u : CELL == 1 ? 3u : 1u;
  const uint GH = G * H;
  uint d = gl_WorkGroupID.x / B, b = gl_WorkGroupID.x % B;
  uint lid = gl_LocalInvocationID.x, step_j = gl_WorkGroupSize.x;
  bool backwards = d == 1u || p.reverse != 0u;
  uint bias_base = d * 2u * GH;

  float c_loc[MAX_PER], z_loc[MAX_PER], r_loc[MAX_PER], h_new[MAX_PER];
  for (uint k = 0u; k < MAX_PER; ++k) {
    uint j = lid + k * step_j;
    c_loc[k] = 0.0;
    if (j >= H) continue;
    h_sh[0][j] = flag(2u) ? LOAD(h0, state_at(d, b) + j) : 0.0;
    if (CELL == 2 && flag(4u)) c_loc[k] = LOAD(c0, state_at(d, b) + j);
  }
  barrier();

  for (uint s = 0u; s < T; ++s) {
    uint t = backwards ? T - 1u - s : s;
    uint cur = s & 1u, next = cur ^ 1u;
    uint row = p.batch_first != 0u ? b * T + t : t * B + b;
    uint x_base = (d * T * B + row) * GH;
    // Phase 1: every gate that reads h.
    for (uint k = 0u; k < MAX_PER; ++k) {
      uint j = lid + k * step_j;
      if (j >= H) continue;
      // Pre-activation of gate g at unit j, without GRU's candidate.
      #define PRE(g) (LOAD(xw, x_base + (g) * H + j) + dot_h(cur, d, GH, (g) * H + j) + \
                      (flag(1u) ? LOAD(bias, bias_base + (g) * H + j) + LOAD(bias, bias_base + GH + (g) * H + j) : 0.0))
      if (CELL == 0) {
        h_new[k] = tanh(PRE(0u));
      } else if (CELL == 1) {
        z_loc[k] = sigmoid(PRE(0u));
        r_loc[k] = sigmoid(PRE(1u));
        if (!flag(64u)) rh_sh[j] = r_loc[k] * h_sh[cur][j];
      } else {
        float i_g = sigmoid(PRE(0u));
        float o_g = sigmoid(PRE(1u));
        float f_g = flag(128u) ? 1.0 - i_g : sigmoid(PRE(2u));
        float c = f_g * c_loc[k] + i_g * tanh(PRE(3u));
        c_loc[k] = c;
        h_new[k] = o_g * tanh(c);
      }
      #undef PRE
    }
    if (CELL == 1) {
      // Phase 2: the candidate, which needs r of every unit.
      barrier();
      for (uint k = 0u; k < MAX_PER; ++k) {
        uint j = lid + k * step_j;
        if (j >= H) continue;
        uint h_row = 2u * H + j;
        float wb = flag(1u) ? LOAD(bias, bias_base + h_row) : 0.0;
        float rb = flag(1u) ? LOAD(bias, bias_base + GH + h_row) : 0.0;
        float recur = flag(64u) ? r_loc[k] * (dot_h(cur, d, GH, h_row) + rb) : dot_rh(d, GH, h_row) + rb;
        float n = tanh(LOAD(xw, x_base + h_row) + wb + recur);
        h_new[k] = (1.0 - z_loc[k]) * n + z_loc[k] * h_sh[cur][j];
      }
    }
    for (uint k = 0u; k < MAX_PER; ++k) {
      uint j = lid + k * step_j;
      if (j >= H) continue;
      h_sh[next][j] = h_new[k];
      if (flag(8u)) {
        uint at = p.batch_first != 0u ? ((b * T + t) * p.dirs + d) * H + j : ((t * p.dirs + d) * B + b) * H + j;
        STORE(y, at, h_new[k]);
      }
    }
    barrier();  // h_sh[next] complete; h_sh[cur] free for the step after
  }
  for (uint k = 0u; k < MAX_PER; ++k) {
    uint j = lid + k * step_j;
    if (j >= H) continue;
    if (flag(16u)) STORE(y_h, state_at(d, b) + j, h_sh[T & 1u][j]);
    if (CELL == 2 && flag(32u)) STORE(y_c, state_at(d, b) + j, c_loc[k]);
  }
}
