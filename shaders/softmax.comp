// @mote bindings=2 push=12
// Softmax and LogSoftmax, shared-memory workgroup fold (see softmax.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "softmax.glsl"
