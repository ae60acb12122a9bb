// @mote bindings=4 push=36
// QLinearMatMul through the integer dot-product instructions
// (VK_KHR_shader_integer_dot_product): qlinear_matmul.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_spirv_intrinsics : require
#define MOTE_INT8_DOT 1
#include "qlinear_matmul.glsl"
