// @mote bindings=5 push=100 arithmetic=f16
// matmul.comp on the shared-memory GEMM core (gemm_shared.glsl), for GPUs.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "activation.glsl"
#include "gemm_shared.glsl"
#include "matmul_main.glsl"
