// The body of conv_gemm.comp and conv_gemm_shared.comp (see conv_gemm.comp),
// after common.glsl, activation.glsl and one of the GEMM cores.

layout(constant_id = 7) const int ACT = 0;
layout(constant_id = 8) const bool HAS_BIAS = false;
layout(constant_id = 9) const bool POINTWISE = false;
layout(constant_id = 10) const bool HAS_RESIDUAL = false;
// Split-K: workgroup z sums k_chunk values of k (there is one group) and
// writes its raw sums to partial[z][row][col]; gemm_split_reduce.comp adds
// the parts and applies the epilogue.
layout(constant_id = 11) const bool SPLIT = false;
// The product turned around for a pointwise layer over one image whose
// pixels are few or not a multiple of 4 (7x7): rows = pixels, columns =
// output channels, R = X (pixel row, channel k at k * out_pixels + row), C =
// the weights transposed at prepare ([in][out], so a column quad is four
// output channels); the output is written Y[channel][pixel] as usual.
layout(constant_id = 12) const bool TRANSPOSED = false;

TENSOR_RO(0, x)
TENSOR4_RO(0, x)  // with COLUMN_QUADS
TENSOR_RO(1, w)
TENSOR4_RO(1, w)  // TRANSPOSED with COLUMN_QUADS
TENSOR_RO(2, bias)  // bound to W when absent
// Per k: channel offset, dy, dx, unused. Only the shared core reads it; on
// the register core, whose k come in order, begin_k walks (c, ky, kx)
// instead, sparing a load per k (on lavapipe a loop over the lanes: ResNet's
// 7x7 stem ~17 % faster, its strided 3x3 layers ~10 %, docs/vulkan.md).
// Bound to W otherwise.
layout(std430, binding = 3) readonly buffer ktab_block { uvec4 ktab[]; };
TENSOR_WO(4, y)
TENSOR4_WO(4, y)
TENSOR_RO(5, residual)  // Y's shape; bound to W when absent
TENSOR4_RO(5, residual)
// f32 whatever the storage precision (an I32 scratch on the host); bound to
// Y when unused.
layout(std430, binding = 6) writeonly buffer partial_block { float partial[]; };
layout(push_constant) uniform Push {
  uint rows;           // output channels per group
  uint cols;           // batch * out_pixels
  uint depth;          // input channels per group * kh * kw
  uint out_pixels, out_w;
  uint in_h, in_w;
  uint in_image;       // C * in_h * in_w: one image of X
  uint in_group;       // input channels per group * in_h * in_w
  uint out_channels;   // over all groups
  int stride_h, stride_w, pad_h, pad_w;
  float act_a, act_b;
  uint k_chunk;  // SPLIT: the k values of one workgroup z
  uint dil_h, dil_w;    // dilation
  uint span_h, span_w;  // the dilated window: kernel_h * dil_h, kernel_w * dil_w
} p;

uint w_base;
// Per column this invocation loads: start of its image and group in X, the
// top-left corner of its window, and whether the column exists.
uint x_base[C_SLOTS];
int iy0[C_SLOTS], ix0[C_SLOTS];
bool col_ok[C_SLOTS];

float load_r(uint row, uint k) {
  if (TRANSPOSED) return LOAD(x, k * p.out_pixels + row);
  return LOAD(w, w_base + row * p.depth + k);
}

uvec4 tap;        // ktab[k] of the current k
uvec3 next_tap;   // K_IN_ORDER: channel offset, dy, dx of the k after it

// The tap of reduction index k = (c * kernel_h + ky) * kernel_w + kx.
uvec3 decode_tap(uint k) {
  uint kernel_w = p.span_w / p.dil_w, taps = (p.span_h / p.dil_h) * kernel_w;
  uint r = k % taps;
  return uvec3((k / taps) * p.in_h * p.in_w, (r / kernel_w) * p.dil_h, (r % kernel_w) * p.dil_w);
}

void begin_k(uint k) {
  if (POINTWISE) return;
  if (!K_IN_ORDER) {
    tap = ktab[k];
    return;
  }
  tap = uvec4(next_tap, 0u);
  next_tap.z += p.dil_w;
  if (next_tap.z == p.span_w) {
    next_tap.z = 0u;
    next_tap.y += p.dil_h;
    if (next_tap.y == p.span_h) {
      next_tap.y = 0u;
      next_tap.x += p.in_h * p.in_w;
    }
  }
}

float load_c(uint k, uint j) {
  if (!col_ok[j]) return 0.0;
  if (TRANSPOSED) return LOAD(w, k * p.cols + c_slot_column(gl_WorkGroupID.x * TILE_COLS, j));
  if (POINTWISE) return LOAD(x, x_base[j] + k * p.in_h * p.in_w);
  int iy = iy0[j] + int(tap.y);
  int ix = ix0[j] + int(tap.z);
  if (uint(iy) >= p.in_h || uint(ix) >= p.in_w) return 0.0;
  return LOAD(x, x_base[j] + tap.x + uint(iy) * p.in_w + uint(ix));
}

// COLUMN_QUADS only with POINTWISE and out_pixels a multiple of 4 (the
// host's choice), so a quad is four pixels of one image, 16-byte aligned;
// or TRANSPOSED, where a quad is four output channels of a row of the
// transposed weights, whose rows hold a multiple of 4 floats.
vec4 load_c4(uint k, uint q) {
  uint j = 4u * q;
  if (!col_ok[j]) return vec4(0.0);
  if (TRANSPOSED) return LOAD4(w, (k * p.cols + c_slot_column(gl_WorkGroupID.x * TILE_COLS, j)) / 4u);
  return LOAD4(x, (x_base[j] + k * p.in_h * p.in_w) / 4u);
}

// TRANSPOSED: output channel `col`, pixel `row` of the one image.
void store_transposed(uint first_row, uint first_col) {
  [[unroll]] for (uint j = 0u; j < OUT_TN; ++j) {
    uint channel = out_col(first_col, j);
    float b = HAS_BIAS && channel < p.cols ? LOAD(bias, channel) : 0.0;
    [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
      uint pixel = out_row(first_row, i);
      if (channel < p.cols && pixel < p.rows) {
        uint at = channel * p.out_pixels + pixel;
        float v = acc[i * OUT_TN + j] + b;
        if (HAS_RESIDUAL) v += LOAD(residual, at);
        STORE(y, at, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}

// Four outputs of a row at once: columns 4q .. 4q + 3 of this invocation.
void store_quads(uint first_row, uint first_col, uint group, float row_bias[OUT_TM]) {
  [[unroll]] for (uint q = 0u; q < OUT_TN / 4u; ++q) {
    uint col = out_col(first_col, 4u * q);
    uint y_base = (col / p.out_pixels) * p.out_channels * p.out_pixels + col % p.out_pixels;
    [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
      uint row = out_row(first_row, i);
      if (col < p.cols && row < p.rows) {
        uint at = (y_base + (group * p.rows + row) * p.out_pixels) / 4u;
        vec4 v = vec4(acc[i * OUT_TN + 4u * q], acc[i * OUT_TN + 4u * q + 1u], acc[i * OUT_TN + 4u * q + 2u],
                      acc[i * OUT_TN + 4u * q + 3u]) + row_bias[i];
        if (HAS_RESIDUAL) v += LOAD4(residual, at);
        [[unroll]] for (uint e = 0u; e < 4u; ++e) v[e] = activation(ACT, v[e], p.act_a, p.act_b, 0.0);
        STORE4(y, at, v);
      }
    }
  }
}

void main() {
  uint group = SPLIT ? 0u : gl_WorkGroupID.z;
  uint first_row = gl_WorkGroupID.y * TILE_ROWS, first_col = gl_WorkGroupID.x * TILE_COLS;
  // The host never splits a turned-around product (only the shared core
  // splits, and it never turns one around).
  if (TRANSPOSED && !SPLIT) {
    [[unroll]] for (uint j = 0u; j < C_SLOTS; ++j) col_ok[j] = c_slot_column(first_col, j) < p.cols;
    gemm_accumulate(first_row, p.rows, 0u, p.depth);
    store_transposed(first_row, first_col);
    return;
  }
  w_base = group * p.rows * p.depth;
  [[unroll]] for (uint j = 0u; j < C_SLOTS; ++j) {
    uint col = c_slot_column(first_col, j);
    col_ok[j] = col < p.cols;
    uint image = col / p.out_pixels, pixel = col % p.out_pixels;
    x_base[j] = image * p.in_image + group * p.in_group + (POINTWISE ? pixel : 0u);
    iy0[j] = int(pixel / p.out_w) * p.stride_h - p.pad_h;
    ix0[j] = int(pixel % p.out_w) * p.stride_w - p.pad_w;
  }

  uint k_begin = SPLIT ? gl_WorkGroupID.z * p.k_chunk : 0u;
  if (K_IN_ORDER && !POINTWISE) next_tap = decode_tap(k_begin);
  gemm_accumulate(first_row, p.rows, k_begin, SPLIT ? min(p.depth, k_begin + p.k_chunk) : p.depth);

  // One bias load per row, not per output: on lavapipe each load is a loop
  // over the lanes.
  float row_bias[OUT_TM];
  [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
    uint row = out_row(first_row, i);
    row_bias[i] = HAS_BIAS && !SPLIT && row < p.rows ? LOAD(bias, group * p.rows + row) : 0.0;
  }
  if (COLUMN_QUADS && !SPLIT) {
    store_quads(first_row, first_col, group, row_bias);
    return;
  }
  // Unrolled and guarded with if rather than break, so that acc[] is only
  // ever indexed by constants.
  [[unroll]] for (uint j = 0u; j < OUT_TN; ++j) {
    uint col = out_col(first_col, j);
    uint y_base = (col / p.out_pixels) * p.out_channels * p.out_pixels + col % p.out_pixels;
    [[unroll]] for (uint i = 0u; i < OUT_TM; ++i) {
      uint row = out_row(first_row, i);
      if (SPLIT) {
        if (col < p.cols && row < p.rows) partial[(gl_WorkGroupID.z * p.rows + row) * p.cols + col] = acc[i * OUT_TN + j];
      } else if (col < p.cols && row < p.rows) {
        uint channel = group * p.rows + row;
        float v = acc[i * OUT_TN + j] + row_bias[i];
        if (HAS_RESIDUAL) v += LOAD(residual, y_base + channel * p.out_pixels);
        STORE(y, y_base + channel * p.out_pixels, activation(ACT, v, p.act_a, p.act_b, 0.0));
      }
    }
  }
}
