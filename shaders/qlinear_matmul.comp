// @mote bindings=4 push=36
// QLinearMatMul, portable: qlinear_matmul.glsl with byte-by-byte products.
#version 450
#extension GL_GOOGLE_include_directive : require
#define MOTE_INT8_DOT 0
#include "qlinear_matmul.glsl"
