// @mote bindings=5 push=100 features=subgroup_shuffle arithmetic=f16
// matmul.comp with the register core's rows handed out by subgroup
// shuffles (gemm_tile.glsl, MOTE_SHUFFLE_ROWS), for CPU-type devices.
#version 450
#extension GL_GOOGLE_include_directive : require
#define MOTE_SHUFFLE_ROWS 1
#include "common.glsl"
#include "activation.glsl"
#include "gemm_tile.glsl"
#include "matmul_main.glsl"
