// @mote bindings=7 push=84 arithmetic=f16
// conv_gemm.comp on the shared-memory GEMM core (gemm_shared.glsl), for GPUs.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "gemm_shared.glsl"
#include "conv_gemm_main.glsl"
