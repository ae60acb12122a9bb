// Body of softmax.comp and softmax_subgroup.comp: Softmax or LogSoftmax
// (LOG) along one axis of x viewed as [outer, axis, inner]. A row is one
// (outer, inner) pair: its elements sit `inner` apart.
//
// PER_THREAD = 0: one workgroup per row (inner == 1, the usual last axis).
// PER_THREAD = 1: one invocation per row, for inner > 1, where neighbouring
// rows are neighbouring in memory.
#include "workgroup_reduce.glsl"

layout(constant_id = 3) const bool LOG = false;
layout(constant_id = 4) const bool PER_THREAD = false;
// Attention's rule: a row that is -inf everywhere (masked out) attends to
// nothing and gives zeros, where Softmax gives NaN.
layout(constant_id = 5) const bool EMPTY_ROW_ZERO = false;
TENSOR_RO(0, x)
TENSOR_WO(1, y)
layout(push_constant) uniform Push {
  uint rows;
  uint axis;
  uint inner;
} p;

// Element k of `row`.
uint at(uint row, uint k) { return ((row / p.inner) * p.axis + k) * p.inner + row % p.inner; }

// The output from x - max and the row's sum of exp(x - max). A NaN max or
// sum (a NaN in the row) makes every output NaN, as in the reference.
float result(float shifted, float sum) { return LOG ? shifted - log(sum) : exp(shifted) / sum; }

bool empty_row(float m) { return EMPTY_ROW_ZERO && isinf(m) && m < 0.0; }

void main() {
  if (PER_THREAD) {
    uint row = linear_id();
    if (row >= p.rows) return;
    float m = red_identity(RED_MAX);
    for (uint k = 0u; k < p.axis; ++k) m = red_combine(RED_MAX, m, LOAD(x, at(row, k)));
    float sum = 0.0;
    for (uint k = 0u; k < p.axis; ++k) sum += exp(LOAD(x, at(row, k)) - m);
    for (uint k = 0u; k < p.axis; ++k) STORE(y, at(row, k), empty_row(m) ? 0.0 : result(LOAD(x, at(row, k)) - m, sum));
    return;
  }
  uint row = wg_row();
  if (row >= p.rows) return;  // uniform across the workgroup
  uint lid = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  float m = red_identity(RED_MAX);
  for (uint k = lid; k < p.axis; k += step) m = red_combine(RED_MAX, m, LOAD(x, at(row, k)));
  m = wg_reduce(RED_MAX, m);
  float sum = 0.0;
  for (uint k = lid; k < p.axis; k += step) sum += exp(LOAD(x, at(row, k)) - m);
  sum = wg_reduce(RED_SUM, sum);
  for (uint k = lid; k < p.axis; k += step) STORE(y, at(row, k), empty_row(m) ? 0.0 : result(LOAD(x, at(row, k)) - m, sum));
}
