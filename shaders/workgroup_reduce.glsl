// Folding one value per invocation across a workgroup, for the kernels that
// give each row to one workgroup (reduce, softmax, normalize). Every
// invocation of the workgroup must call wg_reduce (it has barriers) and all
// get the same result.
//
// With MOTE_SUBGROUP defined (the *_subgroup.comp twins, built with
// features=subgroup) each subgroup folds its values in registers first, so
// shared memory only sees one value per subgroup; otherwise a shared-memory
// tree does the whole fold. The host keeps the workgroup a power of two of at
// most WG_MAX invocations.
#define RED_SUM 0
#define RED_MAX 1
#define RED_MIN 2
#define RED_PROD 3

#define WG_MAX 256u
shared float wg_partial[WG_MAX];

float red_identity(int op) {
  switch (op) {
    case RED_MAX: return uintBitsToFloat(0xff800000u);  // -inf
    case RED_MIN: return uintBitsToFloat(0x7f800000u);  // +inf
    case RED_PROD: return 1.0;
    default: return 0.0;
  }
}

// Max and Min let a NaN win, as the reference kernels do (GLSL's max/min
// may return either operand).
float red_combine(int op, float a, float b) {
  switch (op) {
    case RED_MAX: return (isnan(a) || a > b) ? a : b;
    case RED_MIN: return (isnan(a) || a < b) ? a : b;
    case RED_PROD: return a * b;
    default: return a + b;
  }
}

#ifdef MOTE_SUBGROUP
// subgroupMax/Min are undefined for NaN, so NaN is voted on separately.
float subgroup_fold(int op, float v) {
  switch (op) {
    case RED_MAX:
    case RED_MIN: {
      bool any_nan = subgroupMax(isnan(v) ? 1u : 0u) != 0u;
      float x = isnan(v) ? red_identity(op) : v;
      float r = op == RED_MAX ? subgroupMax(x) : subgroupMin(x);
      return any_nan ? uintBitsToFloat(0x7fc00000u) : r;
    }
    case RED_PROD: return subgroupMul(v);
    default: return subgroupAdd(v);
  }
}

float wg_reduce(int op, float v) {
  float r = subgroup_fold(op, v);
  if (gl_NumSubgroups == 1u) return r;
  if (subgroupElect()) wg_partial[gl_SubgroupID] = r;
  barrier();
  // Few partials (workgroup / subgroup size): every invocation folds them in
  // the same order, so all agree bit for bit.
  r = wg_partial[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) r = red_combine(op, r, wg_partial[i]);
  barrier();  // the next call may overwrite wg_partial
  return r;
}
#else
float wg_reduce(int op, float v) {
  uint lid = gl_LocalInvocationID.x;
  wg_partial[lid] = v;
  barrier();
  for (uint stride = gl_WorkGroupSize.x / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) wg_partial[lid] = red_combine(op, wg_partial[lid], wg_partial[lid + stride]);
    barrier();
  }
  float r = wg_partial[0];
  barrier();  // the next call may overwrite wg_partial
  return r;
}
#endif

// The row of this workgroup when rows are spread over x and y (x is capped
// at 65535 groups).
uint wg_row() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
