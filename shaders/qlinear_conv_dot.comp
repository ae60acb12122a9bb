// @mote bindings=5 push=96
// QLinearConv of one group through the integer dot-product instructions
// (VK_KHR_shader_integer_dot_product) on channel-packed X and W:
// qlinear_conv.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_spirv_intrinsics : require
#define MOTE_INT8_DOT 1
#include "qlinear_conv.glsl"
