// @mote bindings=7 push=84 features=subgroup_shuffle arithmetic=f16
// conv_gemm.comp with the register core's rows handed out by subgroup
// shuffles (gemm_tile.glsl, MOTE_SHUFFLE_ROWS), for CPU-type devices.
#version 450
#extension GL_GOOGLE_include_directive : require
#define MOTE_SHUFFLE_ROWS 1
#include "common.glsl"
#include "activation.glsl"
#include "gemm_tile.glsl"
#include "conv_gemm_main.glsl"
