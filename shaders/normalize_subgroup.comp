// @mote bindings=6 push=96 features=subgroup
// normalize.comp folding with subgroup arithmetic (see normalize.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define MOTE_SUBGROUP 1
#include "common.glsl"
#include "normalize.glsl"
