// The macro vocabulary every Mote shader uses, so one source serves f32 and
// f16 storage. Arithmetic is f32; only loads and stores change, except in
// the f16-arithmetic variant of the shaders that declare one (arithmetic=f16
// on their @mote line, compiled with MOTE_FP16_MATH=1 as well): there
// MATH_T / MATH_VEC4 are f16 types for their products (gemm_tile.glsl).
//
//   TENSOR_RO(binding, name)   read-only float tensor   -> name[]
//   TENSOR_WO(binding, name)   write-only float tensor
//   TENSOR_RW(binding, name)   read-write float tensor
//   LOAD(name, i)              element i as float
//   STORE(name, i, v)          writes float v to element i
//   WORDS_RO / WORDS_WO        raw 32-bit words (int64 as pairs, bool as bytes)
//   TENSOR4_RO / TENSOR4_WO(binding, name)
//                              the same binding seen as vec4s -> name4[]
//   LOAD4(name, i) / STORE4(name, i, v)
//                              vec4 i of it (elements 4i .. 4i + 3)
//
// Workgroup size comes from specialisation constants 0..2 (the kernel chooses
// it per device); shader-specific constants start at id 3.
#if MOTE_FP16
#extension GL_EXT_shader_16bit_storage : require
#define STORE_T float16_t
#define STORE_VEC4 f16vec4
#else
#define STORE_T float
#define STORE_VEC4 vec4
#endif

// The type of products in shaders with an f16-arithmetic variant.
#if MOTE_FP16_MATH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define MATH_T float16_t
#define MATH_VEC4 f16vec4
#else
#define MATH_T float
#define MATH_VEC4 vec4
#endif

#define TENSOR_RO(b, name) layout(std430, binding = b) readonly buffer name##_block { STORE_T name[]; };
#define TENSOR_WO(b, name) layout(std430, binding = b) writeonly buffer name##_block { STORE_T name[]; };
#define TENSOR_RW(b, name) layout(std430, binding = b) buffer name##_block { STORE_T name[]; };
#define WORDS_RO(b, name) layout(std430, binding = b) readonly buffer name##_block { uint name[]; };
#define WORDS_WO(b, name) layout(std430, binding = b) writeonly buffer name##_block { uint name[]; };
#define WORDS_RW(b, name) layout(std430, binding = b) buffer name##_block { uint name[]; };
#define LOAD(name, i) float(name[i])
#define STORE(name, i, v) name[i] = STORE_T(v)
#define TENSOR4_RO(b, name) layout(std430, binding = b) readonly buffer name##4_block { STORE_VEC4 name##4[]; };
#define TENSOR4_WO(b, name) layout(std430, binding = b) writeonly buffer name##4_block { STORE_VEC4 name##4[]; };
#define LOAD4(name, i) vec4(name##4[i])
#define STORE4(name, i, v) name##4[i] = STORE_VEC4(v)

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// Index of this invocation in a 1-D launch that may span several workgroup
// rows (dispatch x is capped at 65535 groups, so long launches use y too).
uint linear_id() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
}

// Signed 64-bit element i of a word buffer, truncated to int (indices and
// shapes fit: tensors are below 2^31 elements on the GPU path).
#define LOAD_I64(name, i) int(name[2u * uint(i)])
#define STORE_I64(name, i, v) { int v_ = int(v); name[2u * uint(i)] = uint(v_); name[2u * uint(i) + 1u] = v_ < 0 ? 0xffffffffu : 0u; }
