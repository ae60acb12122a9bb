// Body of normalize.comp and normalize_subgroup.comp: LayerNormalization and
// InstanceNormalization. x is a stack of contiguous rows of row_size (the
// dims from `axis` on, or one (n, c) plane); one workgroup per row computes
// the mean, then the mean squared deviation (two passes, as the reference),
// then y = (x - mean) * inv_std * scale + bias. With PER_THREAD, one
// invocation per row does the same alone (short rows on CPU-type devices).
//
// Parameters: with channels > 0 (InstanceNorm) both are indexed by the
// row's channel; otherwise (LayerNorm) by the element's position in the row,
// broadcast through per-dim strides over the normalised dims unless marked
// dense. Mean and InvStdDev (LayerNorm's optional outputs) go to bindings 4
// and 5 when their flags are set.
#include "workgroup_reduce.glsl"

#define HAS_BIAS 1u
#define WRITE_MEAN 2u
#define WRITE_INV_STD 4u
#define SCALE_DENSE 8u
#define BIAS_DENSE 16u

layout(constant_id = 3) const bool PER_THREAD = false;

TENSOR_RO(0, x)
TENSOR_RO(1, scale)
TENSOR_RO(2, bias)
TENSOR_WO(3, y)
TENSOR_WO(4, mean_out)
TENSOR_WO(5, inv_std_out)
layout(push_constant) uniform Push {
  uint rows;
  uint row_size;
  uint channels;
  uint flags;
  float epsilon;
  uint rank;
  uint dims[6];
  uint scale_strides[6];
  uint bias_strides[6];
} p;

uint broadcast_index(uint j, bool is_scale) {
  uint offset = 0u;
  // dims and strides are right-aligned in 6 slots.
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    offset += (j % p.dims[d]) * (is_scale ? p.scale_strides[d] : p.bias_strides[d]);
    j /= p.dims[d];
  }
  return offset;
}

float param_scale(uint row, uint j) {
  if (p.channels > 0u) return LOAD(scale, row % p.channels);
  return LOAD(scale, (p.flags & SCALE_DENSE) != 0u ? j : broadcast_index(j, true));
}

float param_bias(uint row, uint j) {
  if ((p.flags & HAS_BIAS) == 0u) return 0.0;
  if (p.channels > 0u) return LOAD(bias, row % p.channels);
  return LOAD(bias, (p.flags & BIAS_DENSE) != 0u ? j : broadcast_index(j, false));
}

void main() {
  uint row = PER_THREAD ? linear_id() : wg_row();
  if (row >= p.rows) return;  // uniform across the workgroup unless PER_THREAD
  uint lid = PER_THREAD ? 0u : gl_LocalInvocationID.x, step = PER_THREAD ? 1u : gl_WorkGroupSize.x;
  uint base = row * p.row_size;
  float n = float(p.row_size);
  float sum = 0.0;
  for (uint j = lid; j < p.row_size; j += step) sum += LOAD(x, base + j);
  float mean = (PER_THREAD ? sum : wg_reduce(RED_SUM, sum)) / n;
  float squares = 0.0;
  for (uint j = lid; j < p.row_size; j += step) {
    float d = LOAD(x, base + j) - mean;
    squares += d * d;
  }
  float inv_std = 1.0 / sqrt((PER_THREAD ? squares : wg_reduce(RED_SUM, squares)) / n + p.epsilon);
  for (uint j = lid; j < p.row_size; j += step) {
    STORE(y, base + j, (LOAD(x, base + j) - mean) * inv_std * param_scale(row, j) + param_bias(row, j));
  }
  if (lid == 0u) {
    if ((p.flags & WRITE_MEAN) != 0u) STORE(mean_out, row, mean);
    if ((p.flags & WRITE_INV_STD) != 0u) STORE(inv_std_out, row, inv_std);
  }
}
