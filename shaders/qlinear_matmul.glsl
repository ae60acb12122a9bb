// QLinearMatMul (runtime/ops/qlinear_matmul.hpp) with a constant B, the
// body of qlinear_matmul.comp (portable) and qlinear_matmul_dot.comp
// (MOTE_INT8_DOT: VK_KHR_shader_integer_dot_product's packed 4 x 8-bit
// dot products, on devices that have it, for K a multiple of 4). The host
// packs B transposed, one row of K bytes per column n (rows padded to
// words), and tabulates per column: the int32 bias, B's zero point,
// a_scale * b_scale[n] as float bits and the sum of the column's codes.
// The portable path sums (a - a_zero)(b - b_zero) byte by byte; the dot
// path sums the raw products four at a time and removes the zero points
// after: sum (a - za)(b - zb) = sum ab - za sum b - zb sum a + K za zb
// (int32 arithmetic wraps, and the true sum fits: K <= 32768). Requantised
// in f32 as the CPU kernel: the real value, the fused activation, division
// by y_scale, rounding half to even, the zero point, saturation. One
// invocation per word of Y: four outputs, so no two invocations share one.
#include "common.glsl"
#include "activation.glsl"
#include "quant.glsl"
#include "dot4.glsl"

layout(constant_id = 3) const int ACT = 0;
layout(constant_id = 4) const bool A_SIGNED = false;
layout(constant_id = 5) const bool B_SIGNED = true;
layout(constant_id = 6) const bool Y_SIGNED = false;

WORDS_RO(0, a)       // bytes, [rows, K]
WORDS_RO(1, b)       // bytes, [N, b_row_words * 4]: B transposed
WORDS_RO(2, column)  // per column n: bias, b zero point, multiplier bits, sum of codes
WORDS_WO(3, y)       // bytes, [rows, N]
layout(push_constant) uniform Push {
  uint n;  // outputs
  uint k, columns, b_row_words;
  int a_zero, y_zero;
  float y_scale, act_a, act_b;
} p;


int accumulated(uint row, uint n) {
  int b_zero = int(column[4u * n + 1u]);
  int acc = int(column[4u * n]);
#if MOTE_INT8_DOT
  uint words = p.k >> 2u, a0 = row * words, b0 = n * p.b_row_words;
  int dot = 0, a_sum = 0;
  for (uint w = 0u; w < words; ++w) {
    uint aw = a[a0 + w];
    dot += dot4(aw, b[b0 + w], A_SIGNED, B_SIGNED);
    a_sum += sum4(aw, A_SIGNED);
  }
  acc += dot - p.a_zero * int(column[4u * n + 3u]) - b_zero * a_sum + int(p.k) * p.a_zero * b_zero;
#else
  uint a0 = row * p.k, b0 = n * p.b_row_words * 4u;
  for (uint i = 0u; i < p.k; ++i) {
    acc += (BYTE_AT(a, a0 + i, A_SIGNED) - p.a_zero) * (BYTE_AT(b, b0 + i, B_SIGNED) - b_zero);
  }
#endif
  return acc;
}

int output_code(uint e) {
  uint row = e / p.columns, n = e % p.columns;
  float real = float(accumulated(row, n)) * uintBitsToFloat(column[4u * n + 2u]);
  return requantize(activation(ACT, real, p.act_a, p.act_b, 0.0), p.y_scale, p.y_zero, Y_SIGNED);
}

CODE_WORDS_MAIN(output_code, y, p.n)
