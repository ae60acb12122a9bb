// Moving elements of any dtype: the shared body of copy_strided.comp and
// gather.comp. The includer declares the spec constant KIND, both views of
// its source and destination bindings (src_t/src_w, dst_t/dst_w: aliases of
// one buffer each) and, before including this file:
//   int source(uint e)        the source element of domain element e, -1 for the constant
//   uint destination(uint e)  the output element domain element e writes
//
// KIND: 0 float tensor (f32 or f16 storage, STORE_T), 1 one 32-bit word
// (i32, f32 bits), 2 two words (i64, f64), 3 bytes and 4 16-bit values packed
// four or two to a word (bool, i8, u8; f16 data). Packed kinds give each
// invocation a whole output word, so no 8- or 16-bit storage is needed and
// no two invocations share a word.

// Moves unit u: element u, or output word u of the packed kinds. `value` is
// the constant's bits (float bits for KIND 0; .y is the high word for KIND 2).
void move_unit(uint u, uint n, uvec2 value) {
  if (KIND <= 2) {
    if (u >= n) return;
    int s = source(u);
    uint d = destination(u);
    if (KIND == 0) {
      STORE(dst_t, d, s < 0 ? uintBitsToFloat(value.x) : LOAD(src_t, s));
    } else if (KIND == 1) {
      dst_w[d] = s < 0 ? value.x : src_w[s];
    } else {
      dst_w[2u * d] = s < 0 ? value.x : src_w[2 * s];
      dst_w[2u * d + 1u] = s < 0 ? value.y : src_w[2 * s + 1];
    }
    return;
  }
  const uint per = KIND == 3 ? 4u : 2u;  // elements per word
  const uint bits = 32u / per;
  const uint mask = (1u << bits) - 1u;
  uint first = u * per;
  if (first >= n) return;
  uint word = 0u;
  for (uint k = 0u; k < per && first + k < n; ++k) {
    int s = source(first + k);
    uint v = s < 0 ? value.x : src_w[uint(s) / per] >> (uint(s) % per * bits);
    word |= (v & mask) << (k * bits);
  }
  dst_w[destination(first) / per] = word;
}
