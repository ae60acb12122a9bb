// Bytes of 8-bit quantised tensors in 32-bit word buffers (no 8-bit storage
// feature needed) and the f32 requantisation the int8 shaders share.

// Byte e of a word buffer as a code: sign-extended when the tensor is int8.
#define BYTE_AT(buf, e, is_signed) \
  (is_signed ? bitfieldExtract(int(buf[(e) >> 2u]), int((e) & 3u) * 8, 8) \
             : int(bitfieldExtract(buf[(e) >> 2u], int((e) & 3u) * 8, 8)))

// The code of `real` in (scale, zero): round half to even, saturated to
// the type's range.
int requantize(float real, float scale, int zero, bool is_signed) {
  float q = roundEven(real / scale) + float(zero);
  return int(clamp(q, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0));
}

// main() of the shaders that write 8-bit outputs a word at a time: each
// invocation writes the whole word of outputs 4i .. 4i + 3 (those below
// `count`), code_of(e) giving output e's code, so no two invocations share
// a word.
#define CODE_WORDS_MAIN(code_of, out, count)                                          \
  void main() {                                                                       \
    uint first = linear_id() * 4u;                                                    \
    if (first >= (count)) return;                                                     \
    uint word = 0u;                                                                   \
    for (uint k = 0u; k < 4u && first + k < (count); ++k) {                           \
      word |= (uint(code_of(first + k)) & 0xffu) << (8u * k);                         \
    }                                                                                 \
    out[first >> 2u] = word;                                                          \
  }
