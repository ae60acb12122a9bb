// @mote bindings=6 push=96
// LayerNormalization and InstanceNormalization, shared-memory workgroup fold
// (see normalize.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "normalize.glsl"
