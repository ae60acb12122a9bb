// @mote bindings=2 push=64 features=subgroup
// reduce.comp folding with subgroup arithmetic (see reduce.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define MOTE_SUBGROUP 1
#include "common.glsl"
#include "reduce.glsl"
