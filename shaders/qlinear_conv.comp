// @mote bindings=5 push=96
// QLinearConv, portable: qlinear_conv.glsl with byte-by-byte products.
#version 450
#extension GL_GOOGLE_include_directive : require
#define MOTE_INT8_DOT 0
#include "qlinear_conv.glsl"
