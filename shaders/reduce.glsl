// Body of reduce.comp and reduce_subgroup.comp: y[o] = fold of x over the
// reduced axes. The host merges adjacent axes that are both kept or both
// reduced, so at most three of each remain; each is given as (size, element
// stride in x), innermost last. Output o enumerates the kept axes row-major.
//
// PER_THREAD = 0: one workgroup per output, its invocations striding over
// the reduced elements (best when the reduced axes are innermost).
// PER_THREAD = 1: one invocation per output looping over them, so that
// neighbouring invocations read neighbouring elements (innermost axis kept).
#include "workgroup_reduce.glsl"

#define OP_SUM 0
#define OP_MEAN 1
#define OP_MAX 2
#define OP_MIN 3
#define OP_PROD 4
#define OP_L2 5

layout(constant_id = 3) const int OP = 0;
layout(constant_id = 4) const bool PER_THREAD = false;
TENSOR_RO(0, x)
TENSOR_WO(1, y)
layout(push_constant) uniform Push {
  uint n_out;
  uint n_red;
  uint kept_rank;
  uint red_rank;
  uint kept_dims[3];
  uint kept_strides[3];
  uint red_dims[3];
  uint red_strides[3];
} p;

int fold_op() {
  switch (OP) {
    case OP_MAX: return RED_MAX;
    case OP_MIN: return RED_MIN;
    case OP_PROD: return RED_PROD;
    default: return RED_SUM;  // Sum, Mean, L2 (of squares)
  }
}

uint kept_offset(uint o) {
  uint offset = 0u;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    offset += (o % p.kept_dims[d]) * p.kept_strides[d];
    o /= p.kept_dims[d];
  }
  return offset;
}

uint reduced_offset(uint r) {
  uint offset = 0u;
  for (int d = int(p.red_rank) - 1; d >= 0; --d) {
    offset += (r % p.red_dims[d]) * p.red_strides[d];
    r /= p.red_dims[d];
  }
  return offset;
}

float element(uint base, uint r) {
  float v = LOAD(x, base + reduced_offset(r));
  return OP == OP_L2 ? v * v : v;
}

float finish(float acc) {
  if (OP == OP_MEAN) return acc / float(p.n_red);
  if (OP == OP_L2) return sqrt(acc);
  return acc;
}

void main() {
  int op = fold_op();
  if (PER_THREAD) {
    uint o = linear_id();
    if (o >= p.n_out) return;
    uint base = kept_offset(o);
    float acc = red_identity(op);
    for (uint r = 0u; r < p.n_red; ++r) acc = red_combine(op, acc, element(base, r));
    STORE(y, o, finish(acc));
    return;
  }
  uint o = wg_row();
  if (o >= p.n_out) return;  // uniform across the workgroup
  uint base = kept_offset(o);
  float acc = red_identity(op);
  for (uint r = gl_LocalInvocationID.x; r < p.n_red; r += gl_WorkGroupSize.x) {
    acc = red_combine(op, acc, element(base, r));
  }
  acc = wg_reduce(op, acc);
  if (gl_LocalInvocationID.x == 0u) STORE(y, o, finish(acc));
}
