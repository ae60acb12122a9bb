// @mote bindings=3 push=16
// y = table[x], byte by byte: QLinearActivation (the whole tensor) and one
// input of QLinearConcat (its rows into Y's wider rows). The host tabulates
// each of X's 256 codes requantised to Y (reference::code_table, as the
// CPU kernels), so the shader only looks bytes up. One invocation per 32-bit
// word of X: the host checks that rows, Y's rows and the offset fill whole
// words, so each invocation writes one whole word of Y and no two share one.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

WORDS_RO(0, x)      // bytes
WORDS_RO(1, table)  // 256 bytes, four to a word
WORDS_WO(2, y)      // bytes
layout(push_constant) uniform Push {
  uint words;                        // of X (its bytes rounded up to a word)
  uint row_words, y_row_words, y_offset_words;
} p;

uint code_of(uint byte_value) { return bitfieldExtract(table[byte_value >> 2u], int(byte_value & 3u) * 8, 8); }

void main() {
  uint w = linear_id();
  if (w >= p.words) return;
  uint word = x[w], mapped = 0u;
  for (int k = 0; k < 4; ++k) mapped |= code_of(bitfieldExtract(word, 8 * k, 8)) << uint(8 * k);
  y[w / p.row_words * p.y_row_words + p.y_offset_words + w % p.row_words] = mapped;
}
