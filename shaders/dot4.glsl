// The packed 4 x 8-bit dot products of VK_KHR_shader_integer_dot_product
// (OpSDot, OpUDot, OpSUDot with PackedVectorFormat4x8Bit), for shaders
// compiled with MOTE_INT8_DOT (and GL_EXT_spirv_intrinsics, which emits
// them: Debian's glslang 12 has no GLSL names for them); empty otherwise.
#if MOTE_INT8_DOT
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot4_(uint x, uint y, spirv_literal int format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4451)
uint udot4_(uint x, uint y, spirv_literal int format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int sudot4_(uint signed_x, uint unsigned_y, spirv_literal int format);

// The sum of the products of a's and b's four codes, each word's codes
// signed or not.
int dot4(uint a, uint b, bool a_signed, bool b_signed) {
  if (a_signed && b_signed) return sdot4_(a, b, 0);
  if (!a_signed && !b_signed) return int(udot4_(a, b, 0));
  return a_signed ? sudot4_(a, b, 0) : sudot4_(b, a, 0);
}

// The sum of a word's four codes.
int sum4(uint a, bool a_signed) { return a_signed ? sdot4_(a, 0x01010101u, 0) : int(udot4_(a, 0x01010101u, 0)); }
#endif
