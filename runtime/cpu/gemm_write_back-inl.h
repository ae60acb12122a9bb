// How the fp32 GEMM's micro-tiles reach C (gemm_kernel.cpp): the
// parameters of a tile's write-back, the prefetches its loop over k issues,
// the whole-tile write-back (the common case, its branches taken once per
// tile) and the scalar one for the columns of a last partial vector. The
// general write-back (any alpha and beta, edge tiles), vector by vector,
// stays in MicroKernel.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_GEMM_WRITE_BACK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_GEMM_WRITE_BACK_INL_H_
#undef MOTE_CPU_GEMM_WRITE_BACK_INL_H_
#else
#define MOTE_CPU_GEMM_WRITE_BACK_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "runtime/cpu/simd_clamp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::gemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The GEMM's vectors (gemm_kernel.cpp uses the same).
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// How a micro-tile is written back (see compute_tile).
struct StoreParams {
  float alpha;
  float beta;
  int beta_mode;  // 0: C is not read, 1: C += result, 2: C = beta * C + result
  bool epilogue;  // last K block: add the biases and clamp
  bool clamp;
  float lo, hi;
  const float* residual;  // at the tile's first element, or nullptr
  size_t ld_residual;
  const float* row_bias;  // at the tile's first row, or nullptr
  const float* col_bias;  // at the tile's first column, or nullptr
  // Memory for a later tile (the next packed panel of A, or part of the
  // next panel of B): every 2^prefetch_shift steps of k over the tile's
  // loop, the cache line at prefetch + prefetch_step bytes per such step;
  // 0 for none. An address, not a pointer: a share sized for a whole panel
  // may run past the end of a narrower last one, which a prefetch may touch
  // but pointer arithmetic may not reach.
  uintptr_t prefetch = 0;
  size_t prefetch_shift = 1;
  size_t prefetch_step = 64;
};

HWY_INLINE void PrefetchStep(const StoreParams& sp, size_t k) {
  if (sp.prefetch && (k & ((size_t{1} << sp.prefetch_shift) - 1)) == 0) {
    __builtin_prefetch(reinterpret_cast<const void*>(sp.prefetch + (k >> sp.prefetch_shift) * sp.prefetch_step));
  }
}

// Write-back of the columns of a last partial vector (right edge of C) from
// a copy of its accumulators: scalar, so it never touches C past `cols` (a
// masked vector store would on targets without native masking, racing with
// the thread that writes the neighbouring tile).
inline HWY_NOINLINE void WriteBackPartial(const float* tile, size_t rows, size_t stride, size_t cols, float* c,
                                          size_t ldc, const StoreParams& sp) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < cols; ++j) {
      float x = sp.alpha * tile[r * stride + j];
      float& out = c[r * ldc + j];
      if (sp.beta_mode == 1) x += out;
      if (sp.beta_mode == 2) x += sp.beta * out;
      if (sp.epilogue) {
        if (sp.row_bias) x += sp.row_bias[r];
        if (sp.col_bias) x += sp.col_bias[j];
        if (sp.residual) x += sp.residual[r * sp.ld_residual + j];
        if (sp.clamp) x = std::min(std::max(x, sp.lo), sp.hi);
      }
      out = x;
    }
  }
}

HWY_INLINE void PrefetchForWrite(const float* p) {
#if HWY_COMPILER_GCC  // also Clang
  __builtin_prefetch(p, /*rw=*/1, /*locality=*/3);
#else
  hwy::Prefetch(p);
#endif
}

// How StoreWholeTile bounds the results.
enum class Bounds { kNone, kBelow, kBoth };

// The write-back of a whole micro-tile in the common cases (alpha 1, C not
// read, or added to: beta 1, or any K block after the first), with the
// branches of the general write-back in MicroKernel taken once per tile
// instead of once per vector: with shallow products (Winograd's point GEMMs
// of 16 channels, 1x1 layers of 16 to 64) that write-back cost as much as
// the loop over k. Best of nine alternating runs (mote_microbench, 1
// thread, AVX-512), GFLOP/s, for C not read: M x N x K = 64 x 196 x 16
// 51-54 -> 74-82, 64 x 3136 x 64 126 -> 147, 16 x 12544 x 32 84 -> 92, 256 x
// 196 x 2304 137 -> 144, 1024^3 147 -> 150. Then, in a slower minute of the
// host's, also for C added to, which deep products mostly are: 256 x 196 x
// 2304 121 -> 141, 49 x 512 x 4608 128 -> 136. The sums are formed in the
// general write-back's order, so a result does not depend on which one
// wrote it.
template <bool kAccumulate, bool kEpilogue, bool kResidual, Bounds kBounds, size_t H, size_t NV>
HWY_INLINE void StoreWholeTile(const VF (&acc)[H][NV], float* HWY_RESTRICT c, size_t ldc, const StoreParams& sp) {
  const DF d;
  const size_t L = hn::Lanes(d);
  const VF lo = hn::Set(d, sp.lo), hi = hn::Set(d, sp.hi);
  VF col_bias[NV];
#pragma GCC unroll 4
  for (size_t v = 0; v < NV; ++v) col_bias[v] = sp.col_bias ? hn::LoadU(d, sp.col_bias + v * L) : hn::Zero(d);
#pragma GCC unroll 16
  for (size_t r = 0; r < H; ++r) {
    float* HWY_RESTRICT crow = c + r * ldc;
    const VF row_bias = hn::Set(d, sp.row_bias ? sp.row_bias[r] : 0.0f);
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      VF x = acc[r][v];
      if constexpr (kAccumulate) x = hn::Add(x, hn::LoadU(d, crow + v * L));
      if constexpr (kEpilogue) x = hn::Add(hn::Add(x, row_bias), col_bias[v]);
      if constexpr (kResidual) x = hn::Add(x, hn::LoadU(d, sp.residual + r * sp.ld_residual + v * L));
      if constexpr (kBounds == Bounds::kBelow) x = simd_clamp::HWY_NAMESPACE::RaiseKeepingNaN(x, lo);
      if constexpr (kBounds == Bounds::kBoth) x = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(x, lo, hi);
      hn::StoreU(x, d, crow + v * L);
    }
  }
}

// The last K block's write-back: biases, then the residual and bounds the
// epilogue has.
template <bool kAccumulate, size_t H, size_t NV>
HWY_INLINE void StoreWholeTileWithEpilogue(const VF (&acc)[H][NV], float* HWY_RESTRICT c, size_t ldc,
                                           const StoreParams& sp) {
  const Bounds bounds = !sp.clamp ? Bounds::kNone : sp.hi == HUGE_VALF ? Bounds::kBelow : Bounds::kBoth;
  if (sp.residual) {
    if (bounds == Bounds::kNone) return StoreWholeTile<kAccumulate, true, true, Bounds::kNone>(acc, c, ldc, sp);
    if (bounds == Bounds::kBelow) return StoreWholeTile<kAccumulate, true, true, Bounds::kBelow>(acc, c, ldc, sp);
    return StoreWholeTile<kAccumulate, true, true, Bounds::kBoth>(acc, c, ldc, sp);
  }
  if (bounds == Bounds::kNone) return StoreWholeTile<kAccumulate, true, false, Bounds::kNone>(acc, c, ldc, sp);
  if (bounds == Bounds::kBelow) return StoreWholeTile<kAccumulate, true, false, Bounds::kBelow>(acc, c, ldc, sp);
  StoreWholeTile<kAccumulate, true, false, Bounds::kBoth>(acc, c, ldc, sp);
}

// Whether WriteBackWholeTile takes a tile of these parameters: alpha 1,
// and C either not read or added to as it is (beta_mode 0 or 1).
inline bool WholeTileStoreApplies(const StoreParams& sp) { return sp.alpha == 1.0f && sp.beta_mode != 2; }

template <size_t H, size_t NV>
HWY_INLINE void WriteBackWholeTile(const VF (&acc)[H][NV], float* HWY_RESTRICT c, size_t ldc, const StoreParams& sp) {
  const bool accumulate = sp.beta_mode == 1;
  if (!sp.epilogue) {
    if (accumulate) return StoreWholeTile<true, false, false, Bounds::kNone>(acc, c, ldc, sp);
    return StoreWholeTile<false, false, false, Bounds::kNone>(acc, c, ldc, sp);
  }
  if (accumulate) return StoreWholeTileWithEpilogue<true>(acc, c, ldc, sp);
  StoreWholeTileWithEpilogue<false>(acc, c, ldc, sp);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::cpu::gemm_detail
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
