// SIMD part of the fp32 GEMM's matrix-vector paths (gemm.cpp picks them for
// products with one row or one column; see gemm_internal.hpp). Highway
// compiles this file once per target, as gemm_kernel.cpp, with the same
// target list.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

#include <cstddef>
#include <cstdint>

#include "runtime/cpu/gemm_internal.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/gemm_gemv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::gemm_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// out[j] = sum_k s[k] * X[k * ldx + j]. Four vectors of j are kept in
// registers, with two sets of accumulators (even and odd k) so that eight FMA
// chains are in flight.
void GemvRows(int64_t n64, int64_t K64, const float* s, const float* X, int64_t ldx64, float* out) {
  const DF d;
  const size_t L = hn::Lanes(d);
  const size_t n = static_cast<size_t>(n64), K = static_cast<size_t>(K64);
  const size_t ldx = static_cast<size_t>(ldx64);
  size_t j = 0;
  for (; j + 4 * L <= n; j += 4 * L) {
    VF e0 = hn::Zero(d), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    const float* x = X + j;
    size_t k = 0;
    for (; k + 2 <= K; k += 2, x += 2 * ldx) {
      const VF se = hn::Set(d, s[k]), so = hn::Set(d, s[k + 1]);
      e0 = hn::MulAdd(se, hn::LoadU(d, x + 0 * L), e0);
      e1 = hn::MulAdd(se, hn::LoadU(d, x + 1 * L), e1);
      e2 = hn::MulAdd(se, hn::LoadU(d, x + 2 * L), e2);
      e3 = hn::MulAdd(se, hn::LoadU(d, x + 3 * L), e3);
      o0 = hn::MulAdd(so, hn::LoadU(d, x + ldx + 0 * L), o0);
      o1 = hn::MulAdd(so, hn::LoadU(d, x + ldx + 1 * L), o1);
      o2 = hn::MulAdd(so, hn::LoadU(d, x + ldx + 2 * L), o2);
      o3 = hn::MulAdd(so, hn::LoadU(d, x + ldx + 3 * L), o3);
    }
    if (k < K) {
      const VF se = hn::Set(d, s[k]);
      e0 = hn::MulAdd(se, hn::LoadU(d, x + 0 * L), e0);
      e1 = hn::MulAdd(se, hn::LoadU(d, x + 1 * L), e1);
      e2 = hn::MulAdd(se, hn::LoadU(d, x + 2 * L), e2);
      e3 = hn::MulAdd(se, hn::LoadU(d, x + 3 * L), e3);
    }
    hn::StoreU(hn::Add(e0, o0), d, out + j + 0 * L);
    hn::StoreU(hn::Add(e1, o1), d, out + j + 1 * L);
    hn::StoreU(hn::Add(e2, o2), d, out + j + 2 * L);
    hn::StoreU(hn::Add(e3, o3), d, out + j + 3 * L);
  }
  for (; j + L <= n; j += L) {
    VF acc = hn::Zero(d);
    for (size_t k = 0; k < K; ++k) {
      acc = hn::MulAdd(hn::Set(d, s[k]), hn::LoadU(d, X + k * ldx + j), acc);
    }
    hn::StoreU(acc, d, out + j);
  }
  for (; j < n; ++j) {
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k) acc += s[k] * X[k * ldx + j];
    out[j] = acc;
  }
}

// out[i] = dot(X row i, v), four rows at a time so each load of v feeds four
// FMA chains.
void GemvDots(int64_t m64, int64_t K64, const float* X, int64_t ldx64, const float* v, float* out) {
  const DF d;
  const size_t L = hn::Lanes(d);
  const size_t m = static_cast<size_t>(m64), K = static_cast<size_t>(K64);
  const size_t ldx = static_cast<size_t>(ldx64);
  const size_t kv = K / L * L;  // vectorized part of K
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const float* x0 = X + i * ldx;
    const float* x1 = x0 + ldx;
    const float* x2 = x1 + ldx;
    const float* x3 = x2 + ldx;
    VF a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
    for (size_t k = 0; k < kv; k += L) {
      const VF vk = hn::LoadU(d, v + k);
      a0 = hn::MulAdd(hn::LoadU(d, x0 + k), vk, a0);
      a1 = hn::MulAdd(hn::LoadU(d, x1 + k), vk, a1);
      a2 = hn::MulAdd(hn::LoadU(d, x2 + k), vk, a2);
      a3 = hn::MulAdd(hn::LoadU(d, x3 + k), vk, a3);
    }
    float s0 = hn::GetLane(hn::SumOfLanes(d, a0)), s1 = hn::GetLane(hn::SumOfLanes(d, a1));
    float s2 = hn::GetLane(hn::SumOfLanes(d, a2)), s3 = hn::GetLane(hn::SumOfLanes(d, a3));
    for (size_t k = kv; k < K; ++k) {
      s0 += x0[k] * v[k];
      s1 += x1[k] * v[k];
      s2 += x2[k] * v[k];
      s3 += x3[k] * v[k];
    }
    out[i] = s0;
    out[i + 1] = s1;
    out[i + 2] = s2;
    out[i + 3] = s3;
  }
  for (; i < m; ++i) {
    const float* x = X + i * ldx;
    VF a = hn::Zero(d);
    for (size_t k = 0; k < kv; k += L) a = hn::MulAdd(hn::LoadU(d, x + k), hn::LoadU(d, v + k), a);
    float s = hn::GetLane(hn::SumOfLanes(d, a));
    for (size_t k = kv; k < K; ++k) s += x[k] * v[k];
    out[i] = s;
  }
}

}  // namespace mote::cpu::gemm_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::gemm_detail {

HWY_EXPORT(GemvRows);
HWY_EXPORT(GemvDots);

void gemv_rows(int64_t n, int64_t K, const float* s, const float* X, int64_t ldx, float* out) {
  HWY_DYNAMIC_DISPATCH(GemvRows)(n, K, s, X, ldx, out);
}

void gemv_dots(int64_t m, int64_t K, const float* X, int64_t ldx, const float* v, float* out) {
  HWY_DYNAMIC_DISPATCH(GemvDots)(m, K, X, ldx, v, out);
}

}  // namespace mote::cpu::gemm_detail
#endif  // HWY_ONCE
