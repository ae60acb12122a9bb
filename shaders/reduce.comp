// @mote bindings=2 push=64
// Reduce* and global pooling, shared-memory workgroup fold (see reduce.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "reduce.glsl"
