// @mote bindings=2 push=12 features=subgroup
// softmax.comp folding with subgroup arithmetic (see softmax.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define MOTE_SUBGROUP 1
#include "common.glsl"
#include "softmax.glsl"
