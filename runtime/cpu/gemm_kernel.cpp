// SIMD part of the fp32 GEMM (see gemm.hpp, gemm_internal.hpp): micro-kernels
// and packing (the matrix-vector loops are gemm_gemv.cpp). Highway compiles this file once
// per target and gemm.cpp reaches it through dynamic dispatch.

// Targets: AVX-512 and AVX2 on x86, NEON on Arm, and the scalar fallback that
// every build keeps. SSSE3/SSE4 would add build time for CPUs without AVX2
// (they run the scalar code). Scalable targets (SVE, RVV) are left out because
// the kernels keep their accumulators in arrays of vectors, which sizeless
// vector types do not allow; 128-bit SVE machines lose little with NEON.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/cpu/gemm_internal.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/cpu/gemm_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "runtime/cpu/gemm_write_back-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::cpu::gemm_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "gemm_kernel.cpp needs fixed-size vectors: disable scalable targets"
#endif

// DF and VF, the float vectors, come with gemm_write_back-inl.h.

// Register blocking: a micro-tile of kMR rows x kNV vectors is accumulated in
// registers while streaming one A panel (broadcast, one scalar per row) and one
// B panel (kNV vector loads) per step of k. It needs kMR * kNV accumulators,
// kNV B vectors and one broadcast register. Two FMA ports with 4 cycles of
// latency need >= 8 independent accumulators; more amortize the loads. On a
// Xeon with AVX-512, 8x3, 12x2, 14x2 and 6x4 all run at 176 GFLOP/s (peak)
// from L2; 8x3 has the fewest loads per FMA (11 per 24) and 8 rows divide the
// channel counts of typical convolutions (M), so edge panels are rare.
//
// Cache blocking: kKC bounds the depth of a K block. The A panel (kMR x kKC,
// 12 KiB for AVX-512) stays in L1 while the B block (kKC x nc) stays in L2
// for all the A panels of a task (for few rows of A against a B packed
// beforehand, the B panels are the outer loop instead: PanelsOfBOutside);
// kL2Bytes is the share of L2 given to that block, half of a 1 MiB L2 so
// that C and A still fit beside it. Depths of 256 to 512 and budgets of 384
// KiB to 1 MiB measured within noise (+-3%) on the 2 MiB L2 of the
// reference Xeon.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128  // 16 scalar accumulators
constexpr size_t kMR = 4, kNV = 4, kKC = 256, kL2Bytes = 64 * 1024;
#elif HWY_TARGET <= HWY_AVX3  // AVX-512 family: 32 x 512-bit registers
constexpr size_t kMR = 8, kNV = 3, kKC = 384, kL2Bytes = 512 * 1024;
#elif HWY_TARGET == HWY_NEON  // 32 x 128-bit registers
constexpr size_t kMR = 8, kNV = 3, kKC = 256, kL2Bytes = 256 * 1024;
#else  // AVX2 and other 16-register targets: 12 accumulators
constexpr size_t kMR = 6, kNV = 2, kKC = 256, kL2Bytes = 192 * 1024;
#endif

// Up to this many rows of A, an unpacked B (not transposed) is read in place
// rather than packed, its panel rows ldb apart; a partial last panel is
// still packed (a vector load would run past the row). With few rows each B
// element meets few multiply-adds, and the packing copy costs about as much
// memory traffic again as the product. Per-op, 1 thread, EPYC, best of 3
// alternating runs: MobileNetV2's 32 -> 16 channel 1x1 on 112x112 (M = 16)
// 0.172 -> 0.148 ms, its first 3x3 layer (im2col, M = 32) 0.435 -> 0.400 ms,
// ResNet-18's conv1 (M = 64) 2.78 -> 2.68 ms; MobileNetV3-Small 2.14 -> 2.01 ms.
constexpr size_t kMaxRowsForBInPlace = 64;

// The micro-kernels fetch the B panel's rows this many steps of k ahead. A
// B read in place has rows ldb apart, farther than the hardware's stride
// prefetchers follow, and each step of k wants a fresh line per 64 bytes of
// its row (kNV lines with AVX-512); a packed B block shared by the threads
// sits in the other core's L2. Best of nine alternating runs
// (mote_microbench, AVX-512 Xeon; not measured on other targets), none ->
// 8 steps ahead, GFLOP/s: at 1 thread M x N x K = 16 x 12544 x 32 (MobileNetV2's
// 112x112 1x1 layer) 55 -> 84, 24 x 3136 x 144 99 -> 118, 32 x 784 x 192
// 124 -> 135; at 2 threads 1024^3 221 -> 267, 64 x 3136 x 256 (ResNet-50's
// 56x56 1x1 layers) 206 -> 240, 64 x 3136 x 576 222 -> 276. 16 steps was
// no better; packed products at 1 thread within noise.
constexpr size_t kBPrefetchSteps = 8;

KernelShape GetShape() {
  const size_t lanes = hn::Lanes(DF());
  const size_t nr = kNV * lanes;
  const size_t nc_panels = std::max<size_t>(1, kL2Bytes / (kKC * nr * sizeof(float)));
  return KernelShape{static_cast<int64_t>(kMR),
                     static_cast<int64_t>(nr),
                     static_cast<int64_t>(lanes),
                     static_cast<int64_t>(kKC),
                     static_cast<int64_t>(nc_panels * nr),
                     static_cast<int64_t>(HWY_TARGET)};
}

// C[H x cols] (op)= A panel (H x kc) * B panel (kc x NV vectors), the B
// panel's rows b_step floats apart (NV * lanes when packed, ldb when read in
// place). The loops over rows and vectors are unrolled by force: GCC
// otherwise keeps acc in memory, which costs 2.5x.
template <size_t H, size_t NV>
HWY_NOINLINE void MicroKernel(size_t kc, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                              size_t b_step, float* HWY_RESTRICT c, size_t ldc, size_t cols,
                              const StoreParams& sp) {
  const DF d;
  const size_t L = hn::Lanes(d);
  VF acc[H][NV];
#pragma GCC unroll 16
  for (size_t r = 0; r < H; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      acc[r][v] = hn::Zero(d);
      // The C tile is written at the end, and C is too big for L2: fetch it
      // now so the write-back does not wait for L3 once per tile.
      PrefetchForWrite(c + r * ldc + v * L);
    }
  }
  for (size_t k = 0; k < kc; ++k) {
    PrefetchStep(sp, k);
    // As integers: the last steps' addresses pass the end of B.
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(b + v * L) +
                                                       kBPrefetchSteps * b_step * sizeof(float)));
    }
    VF bv[NV];
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, b + v * L);
#pragma GCC unroll 16
    for (size_t r = 0; r < H; ++r) {
      const VF ar = hn::Set(d, a[r]);
#pragma GCC unroll 4
      for (size_t v = 0; v < NV; ++v) acc[r][v] = hn::MulAdd(ar, bv[v], acc[r][v]);
    }
    a += H;
    b += b_step;
  }

  // A whole kMR x kNV tile with alpha 1 and beta 0 or 1 (nearly all of
  // them) takes WriteBackWholeTile, its branches taken once per tile; only
  // the full-size kernel has it, edge tiles being rare and each variant
  // costing code. The rest come here: vectors wholly inside C are written
  // back as vectors, the branches once per vector; the columns of a last
  // partial one go through WriteBackPartial. (All of a narrow tile went
  // scalar before: with 169 pixels a GEMM's last 25 columns, 3 % of
  // SqueezeNet's time.) `v < full` keeps acc's indices constant, in
  // registers.
  const size_t full = cols >= NV * L ? NV : cols / L;
  if constexpr (H == kMR && NV == kNV) {
    if (full == NV && WholeTileStoreApplies(sp)) return WriteBackWholeTile(acc, c, ldc, sp);
  }
  const bool scale = sp.alpha != 1.0f;
  const VF alpha = hn::Set(d, sp.alpha);
  const VF beta = hn::Set(d, sp.beta);
  const VF lo = hn::Set(d, sp.lo);
  const VF hi = hn::Set(d, sp.hi);
  VF col_bias[NV];
#pragma GCC unroll 4
  for (size_t v = 0; v < NV; ++v) {
    col_bias[v] = sp.epilogue && sp.col_bias && v < full ? hn::LoadU(d, sp.col_bias + v * L) : hn::Zero(d);
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < H; ++r) {
    float* HWY_RESTRICT crow = c + r * ldc;
    const VF row_bias = hn::Set(d, sp.epilogue && sp.row_bias ? sp.row_bias[r] : 0.0f);
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      if (v >= full) continue;
      VF x = scale ? hn::Mul(acc[r][v], alpha) : acc[r][v];
      if (sp.beta_mode == 1) x = hn::Add(x, hn::LoadU(d, crow + v * L));
      if (sp.beta_mode == 2) x = hn::MulAdd(beta, hn::LoadU(d, crow + v * L), x);
      if (sp.epilogue) {
        x = hn::Add(hn::Add(x, row_bias), col_bias[v]);
        if (sp.residual) x = hn::Add(x, hn::LoadU(d, sp.residual + r * sp.ld_residual + v * L));
        if (sp.clamp) x = simd_clamp::HWY_NAMESPACE::ClampKeepingNaN(x, lo, hi);
      }
      hn::StoreU(x, d, crow + v * L);
    }
  }
  if (full == NV) return;
  HWY_ALIGN float tile[H * HWY_LANES(float)];
#pragma GCC unroll 16
  for (size_t r = 0; r < H; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) {
      if (v == full) hn::Store(acc[r][v], d, tile + r * L);
    }
  }
  StoreParams rest = sp;
  if (rest.col_bias) rest.col_bias += full * L;
  if (rest.residual) rest.residual += full * L;
  WriteBackPartial(tile, H, L, cols - full * L, c + full * L, ldc, rest);
}

using KernelFn = void (*)(size_t, const float*, const float*, size_t, float*, size_t, size_t,
                          const StoreParams&);

// C's last R columns (R at most kMaxTailColumns, short of a whole vector),
// computed a column at a time: one accumulator of the panel's kMR rows per
// column, the rows along the vector, each step of k one load of A and R
// broadcasts of B. MicroKernel spends a whole vector of columns there, and
// deep layers on small images end in such a sliver: Winograd's 7x7 tiles
// on 27x27 and 13x13 images have 49 = 3 x 16 + 1 columns (a quarter of the
// work for 1 of 49 columns with 16-lane vectors), 14x14 tiles 196 = 12 x
// 16 + 4, a squeeze-and-excitation layer one. Each column sums over k in
// the order MicroKernel does, so a result does not depend on where its
// column falls: splitting the sums over several accumulators (more chains
// of FMA latency in flight for one or two columns) moved EfficientNet-B0's
// output 1.3e-4 from onnxruntime's, past the 1e-4 it is held to, where it
// is 3.4e-5 with either kernel in this order. At 1 thread (mote-bench,
// alternating runs): SqueezeNet's 27x27 3x3 layers 0.294 -> 0.270 ms each,
// ResNet-50 67.1 -> 66.5 ms, EfficientNet-B0 11.36 -> 11.18 (medians of four
// rounds; ResNet-18 and SqueezeNet whole within the host's noise).
constexpr size_t kMaxTailColumns = 8;
// Where the panel's kMR rows fill whole vectors of at most kMR lanes.
constexpr bool kColumnTail = kMR == 8 && (HWY_TARGET <= HWY_AVX3 || HWY_TARGET == HWY_NEON);

template <size_t R>
HWY_NOINLINE void ColumnTailKernel(size_t kc, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, size_t b_step,
                                   float* HWY_RESTRICT c, size_t ldc, const StoreParams& sp) {
  const hn::CappedTag<float, kMR> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t kRowLanes = hn::MaxLanes(hn::CappedTag<float, kMR>());
  constexpr size_t kParts = kMR / kRowLanes;  // vectors holding a column's kMR rows
  static_assert(kMR % kRowLanes == 0 && R >= 1 && R <= kMaxTailColumns);
  V acc[R][kParts];
#pragma GCC unroll 8
  for (size_t j = 0; j < R; ++j) {
#pragma GCC unroll 2
    for (size_t q = 0; q < kParts; ++q) acc[j][q] = hn::Zero(d);
  }
  for (size_t k = 0; k < kc; ++k) {
    PrefetchStep(sp, k);
    V av[kParts];
#pragma GCC unroll 2
    for (size_t q = 0; q < kParts; ++q) av[q] = hn::LoadU(d, a + k * kMR + q * kRowLanes);
#pragma GCC unroll 8
    for (size_t j = 0; j < R; ++j) {
      const V bj = hn::Set(d, b[k * b_step + j]);
#pragma GCC unroll 2
      for (size_t q = 0; q < kParts; ++q) acc[j][q] = hn::MulAdd(av[q], bj, acc[j][q]);
    }
  }
  // Column j's sums, then the tile row by row for WriteBackPartial, which
  // applies beta, biases, residual and clamp as for any partial tile.
  HWY_ALIGN float columns[R * kMR];
#pragma GCC unroll 8
  for (size_t j = 0; j < R; ++j) {
#pragma GCC unroll 2
    for (size_t q = 0; q < kParts; ++q) hn::Store(acc[j][q], d, columns + j * kMR + q * kRowLanes);
  }
  float tile[kMR * R];
  for (size_t r = 0; r < kMR; ++r) {
    for (size_t j = 0; j < R; ++j) tile[r * R + j] = columns[j * kMR + r];
  }
  WriteBackPartial(tile, kMR, R, R, c, ldc, sp);
}

using ColumnTailFn = void (*)(size_t, const float*, const float*, size_t, float*, size_t, const StoreParams&);

template <size_t R = kMaxTailColumns>
ColumnTailFn SelectColumnTail(size_t r) {
  if constexpr (R == 1) {
    return &ColumnTailKernel<1>;
  } else {
    return r == R ? &ColumnTailKernel<R> : SelectColumnTail<R - 1>(r);
  }
}

// Kernels for edge tiles: fewer rows at the bottom of M, fewer vectors at the
// right of N. Only the last panel in each direction uses them.
template <size_t H, size_t NV = kNV>
KernelFn SelectVectors(size_t nv) {
  if constexpr (NV == 1) {
    return &MicroKernel<H, 1>;
  } else {
    return nv == NV ? &MicroKernel<H, NV> : SelectVectors<H, NV - 1>(nv);
  }
}
template <size_t H = kMR>
KernelFn SelectKernel(size_t h, size_t nv) {
  if constexpr (H == 1) {
    return SelectVectors<1>(nv);
  } else {
    return h == H ? SelectVectors<H>(nv) : SelectKernel<H - 1>(h, nv);
  }
}

// dst[c * dst_ld + r] = src[r * src_ld + c] for r < rows, c < cols: the
// packing of the operands whose rows run along k (A, or B transposed). Rows
// are taken four at a time and transposed in 4x4 blocks of 128-bit vectors,
// so both sides are accessed with vectors: 1.6x faster than scalar copies on
// a 1024 x 1024 A, where reading A from L3 becomes the limit.
HWY_NOINLINE void Transpose(const float* HWY_RESTRICT src, size_t src_ld, size_t rows, size_t cols,
                            float* HWY_RESTRICT dst, size_t dst_ld) {
  size_t r = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::FixedTag<float, 4> d4;
  for (; r + 4 <= rows; r += 4) {
    const float* s0 = src + r * src_ld;
    const float* s1 = s0 + src_ld;
    const float* s2 = s1 + src_ld;
    const float* s3 = s2 + src_ld;
    float* o = dst + r;
    size_t c = 0;
    for (; c + 4 <= cols; c += 4, o += 4 * dst_ld) {
      const auto r0 = hn::LoadU(d4, s0 + c), r1 = hn::LoadU(d4, s1 + c);
      const auto r2 = hn::LoadU(d4, s2 + c), r3 = hn::LoadU(d4, s3 + c);
      const auto t0 = hn::InterleaveLower(d4, r0, r1);  // r0c0 r1c0 r0c1 r1c1
      const auto t1 = hn::InterleaveLower(d4, r2, r3);  // r2c0 r3c0 r2c1 r3c1
      const auto t2 = hn::InterleaveUpper(d4, r0, r1);  // r0c2 r1c2 r0c3 r1c3
      const auto t3 = hn::InterleaveUpper(d4, r2, r3);
      hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, o);
      hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, o + dst_ld);
      hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, o + 2 * dst_ld);
      hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, o + 3 * dst_ld);
    }
    for (; c < cols; ++c, o += dst_ld) {
      o[0] = s0[c];
      o[1] = s1[c];
      o[2] = s2[c];
      o[3] = s3[c];
    }
  }
#endif
  for (; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) dst[c * dst_ld + r] = src[r * src_ld + c];
  }
}

// Packs rows [k0, k0 + kc) and columns [j_begin, j_end) of op(B) (j_end <=
// cols) as one K block: panels of NR columns from j_begin, the one holding
// column j at (j - j_begin) * kc; the last is padded with zeros to a multiple
// of L columns. With row_offsets (not trans), row k is at B + row_offsets[k].
void PackBBlock(bool trans, const float* B, size_t ldb, const int64_t* row_offsets, size_t k0, size_t kc,
                size_t j_begin, size_t j_end, float* dst) {
  const DF d;
  const size_t L = hn::Lanes(d);
  const size_t NR = kNV * L;
  const size_t full = (j_end - j_begin) / NR;  // panels of NR valid columns
  const size_t j_last = j_begin + full * NR;   // start of the narrower last panel
  const size_t valid = j_end - j_last;
  const size_t w = (valid + L - 1) / L * L;
  float* last = dst + full * NR * kc;
  if (!trans) {
    // Rows of B run along j: sweep each row once across all panels, so the
    // reads are sequential (row by row, panel by panel would stride by ldb
    // every 3 cache lines and defeat the hardware prefetcher).
    for (size_t k = 0; k < kc; ++k) {
      const float* src = B + (row_offsets ? static_cast<size_t>(row_offsets[k0 + k]) : (k0 + k) * ldb) + j_begin;
      float* o = dst + k * NR;
      for (size_t p = 0; p < full; ++p, src += NR, o += NR * kc) {
#pragma GCC unroll 4
        for (size_t v = 0; v < kNV; ++v) hn::StoreU(hn::LoadU(d, src + v * L), d, o + v * L);
      }
      if (valid) {
        std::memcpy(last + k * w, src, valid * sizeof(float));
        std::fill(last + k * w + valid, last + (k + 1) * w, 0.0f);
      }
    }
  } else {  // rows of B run along k: transpose NR rows at a time
    for (size_t p = 0; p < full; ++p) {
      Transpose(B + (j_begin + p * NR) * ldb + k0, ldb, NR, kc, dst + p * NR * kc, NR);
    }
    if (valid) {
      Transpose(B + j_last * ldb + k0, ldb, valid, kc, last, w);
      for (size_t k = 0; k < kc; ++k) std::fill(last + k * w + valid, last + (k + 1) * w, 0.0f);
    }
  }
}

// Up to this many rows, a product whose B was packed before its tiles run (a
// layer's weights packed at prepare, in L3 or DRAM, or a B the threads of a
// call packed together) runs each B panel against all of its A
// panels before the next (PanelsOfBOutside), the A block (at most 384 KiB)
// staying in L2. Otherwise the B block streams in while the first A panel
// meets it and the core waits: ResNet-50's 7x7 layers, products of 49 rows
// (their turned products, conv.cpp) over 2-9 MiB of weights, ran half again
// as long in the network as alone with their weights in cache. Per op at 1
// thread, A/B in alternating runs: those layers 1.45 -> 1.07 ms (1x1) and
// 3.47 -> 2.57 ms (3x3 stride 2); with 128 rows the transformer encoder's
// MatMuls (128 tokens) 13-17 % faster (its Gemm ops 8.13 -> 7.27 ms); with
// 256 ResNet-50's 196-row products (14x14 stride-2 layers) 8-10 %.
constexpr size_t kMaxRowsForPanelsOfBOutside = 256;

bool PanelsOfBOutside(const TileJob& job) {
  return job.pb && !job.pa_prepacked &&
         static_cast<size_t>(job.row_end - job.row_begin) <= kMaxRowsForPanelsOfBOutside;
}

// The address of the packed B panel a task meets after the one before
// column j (in this K block, else the next K block's first of the slab,
// else the next slab's first), or 0 after the last. Packed B holds, per K
// block of depth kc, its column panels in order, kc x NR floats each.
uintptr_t NextPanelOfB(const float* pb, const KBlocks& blocks, int64_t blk, size_t j, size_t n0, size_t n1,
                       size_t next_slab, size_t col_end, size_t padded_cols) {
  const auto panel = [&](int64_t b, size_t col) {
    const size_t k0 = static_cast<size_t>(blocks.begin(b));
    const size_t kc = static_cast<size_t>(blocks.begin(b + 1)) - k0;
    return reinterpret_cast<uintptr_t>(pb + k0 * padded_cols + col * kc);
  };
  if (j < n1) return panel(blk, j);
  if (blk + 1 < blocks.count) return panel(blk + 1, n0);
  if (next_slab < col_end) return panel(0, next_slab);
  return 0;
}

void ComputeTile(const TileJob& job) {
  const DF d;
  const size_t L = hn::Lanes(d);
  const size_t NR = kNV * L;
  const size_t nc = static_cast<size_t>(GetShape().nc);
  const size_t rows = static_cast<size_t>(job.pa_rows);
  const size_t cols = static_cast<size_t>(job.cols);
  const size_t padded_cols = (cols + L - 1) / L * L;
  const size_t ldc = static_cast<size_t>(job.ldc);
  const KBlocks blocks(job.K, static_cast<int64_t>(kKC));
  const bool clamp = job.clamp_min > -HUGE_VALF || job.clamp_max < HUGE_VALF;
  // Unpacked B is packed here one block at a time into this thread's buffer,
  // and used while it is still in L2; or, for few rows of A, read in place.
  float* b_buffer = job.pb ? nullptr : block_buffer(kKC * nc);
  const bool b_in_place = !job.pb && !job.b_trans && !job.b_row_offsets && rows <= kMaxRowsForBInPlace;

  // Loop nest, outermost first: column slabs of at most nc (their B block
  // stays in L2), K blocks, A panels (one stays in L1), B panels; or, for
  // few rows against a B packed beforehand (PanelsOfBOutside), B panels
  // outside A panels. C is revisited once per K block; the first visit
  // applies beta, the last the epilogue. Slabs have equal widths: a narrow
  // last slab would stream all of A for a few columns.
  const size_t col_begin = static_cast<size_t>(job.col_begin);
  const size_t col_end = static_cast<size_t>(job.col_end);
  if (col_end <= col_begin || job.row_end <= job.row_begin) return;
  const size_t slabs = (col_end - col_begin + nc - 1) / nc;
  const size_t slab = (col_end - col_begin + slabs - 1) / slabs;
  const size_t slab_width = (slab + NR - 1) / NR * NR;
  for (size_t n0 = col_begin; n0 < col_end; n0 += slab_width) {
    const size_t n1 = std::min(col_end, n0 + slab_width);
    const size_t padded_n1 = (n1 + L - 1) / L * L;
    for (int64_t blk = 0; blk < blocks.count; ++blk) {
      const size_t k0 = static_cast<size_t>(blocks.begin(blk));
      const size_t kc = static_cast<size_t>(blocks.begin(blk + 1)) - k0;
      const float* a_block = job.pa + k0 * rows;
      // Packed panels of the block start at b_block + (j0 - packed_from) * kc;
      // in place, only a partial last panel is packed.
      const float* b_block = b_buffer;
      size_t packed_from = n0;
      if (job.pb) {
        b_block = job.pb + k0 * padded_cols + n0 * kc;
      } else if (b_in_place) {
        packed_from = n0 + (n1 - n0) / NR * NR;
        if (packed_from < n1) {
          PackBBlock(false, job.b, static_cast<size_t>(job.ldb), nullptr, k0, kc, packed_from, n1, b_buffer);
        }
      } else {
        PackBBlock(job.b_trans, job.b, static_cast<size_t>(job.ldb), job.b_row_offsets, k0, kc, n0, n1, b_buffer);
      }
      StoreParams sp;
      sp.alpha = job.alpha;
      sp.beta = job.beta;
      sp.beta_mode = blk > 0 ? 1 : job.beta == 0.0f ? 0 : job.beta == 1.0f ? 1 : 2;
      sp.epilogue = blk + 1 == blocks.count;
      sp.clamp = clamp;
      sp.lo = job.clamp_min;
      sp.hi = job.clamp_max;
      sp.ld_residual = static_cast<size_t>(job.ld_residual);
      // One micro-tile: rows [i0, i0 + kMR) x the B panel at j0.
      const auto tile = [&](size_t i0, size_t j0, StoreParams& sp) {
        const size_t h = std::min(kMR, rows - i0);
        const float* a_panel = a_block + i0 * kc;
        size_t w = std::min(NR, padded_n1 - j0);
        sp.row_bias = job.row_bias ? job.row_bias + i0 : nullptr;
        sp.col_bias = job.col_bias ? job.col_bias + j0 : nullptr;
        sp.residual = job.residual ? job.residual + i0 * sp.ld_residual + j0 : nullptr;
        const bool in_place = j0 < packed_from;
        const float* b_panel =
            in_place ? job.b + k0 * static_cast<size_t>(job.ldb) + j0 : b_block + (j0 - packed_from) * kc;
        const size_t b_step = in_place ? static_cast<size_t>(job.ldb) : w;
        const size_t panel_cols = std::min(NR, cols - j0);
        // C's last few columns, short of a vector: ColumnTailKernel.
        const size_t tail = panel_cols < w ? panel_cols % L : 0;
        if constexpr (kColumnTail) {
          if (h == kMR && tail > 0 && tail <= kMaxTailColumns) {
            const size_t at = panel_cols - tail;
            StoreParams tail_sp = sp;
            if (tail_sp.col_bias) tail_sp.col_bias += at;
            if (tail_sp.residual) tail_sp.residual += at;
            if (at > 0) tail_sp.prefetch = 0;
            SelectColumnTail(tail)(kc, a_panel, b_panel + at, b_step, job.C + i0 * ldc + j0 + at, ldc, tail_sp);
            w = at;  // the whole vectors before the tail, if any
            if (w == 0) return;
          }
        }
        const KernelFn kernel = (h == kMR && w == NR) ? &MicroKernel<kMR, kNV> : SelectKernel(h, w / L);
        kernel(kc, a_panel, b_panel, b_step, job.C + i0 * ldc + j0, ldc, std::min(panel_cols, w), sp);
      };
      const size_t row_begin = static_cast<size_t>(job.row_begin), row_end = static_cast<size_t>(job.row_end);
      if (PanelsOfBOutside(job)) {
        // Few rows of A against a B packed beforehand (a small image's
        // turned product, a transformer's MatMul): each B panel meets every
        // A panel in turn while the next B panel, in L3 or DRAM, is
        // prefetched a share per tile, a line per 2^shift steps of k. With
        // fewer than 3 A panels (16 rows on AVX-512) a line per step covers
        // a third or two of it; the hardware prefetcher has the rest, the
        // panels being consecutive in memory.
        const size_t a_panels = (row_end - row_begin + kMR - 1) / kMR;
        const size_t panel_lines = kc * NR * sizeof(float) / 64;
        size_t shift = 0;
        while (shift < 4 && a_panels * (kc >> (shift + 1)) >= panel_lines) ++shift;
        sp.prefetch_shift = shift;
        sp.prefetch_step = 64;
        for (size_t j0 = n0; j0 < n1; j0 += NR) {
          const uintptr_t next_b =
              NextPanelOfB(job.pb, blocks, blk, j0 + NR, n0, n1, n0 + slab_width, col_end, padded_cols);
          for (size_t p = 0; p < a_panels; ++p) {
            sp.prefetch = next_b ? next_b + p * (kc >> shift) * 64 : 0;
            tile(row_begin + p * kMR, j0, sp);
          }
        }
        if (sp.epilogue && job.activation) {
          for (size_t r = row_begin; r < std::min(row_end, rows); ++r) {
            job.activation(job.activation_state, job.C + r * ldc + n0, static_cast<int64_t>(n1 - n0));
          }
        }
        continue;
      }
      for (size_t i0 = row_begin; i0 < row_end; i0 += kMR) {
        const size_t h = std::min(kMR, rows - i0);
        // The next A panel (the next K block's first after the last), fetched
        // while this one meets its first B panel: a deep layer's packed
        // weights come from DRAM, and the hardware prefetchers alone left
        // ResNet-50's 14x14 1x1 layers (1 MB of weights each) 7 % slower
        // (per-op sums at 1 thread, 5.39 -> 4.99 ms over ten layers, the
        // prefetches then issued in a burst before the tile; spread over its
        // loop since, a line every other k: ResNet-50 37.3 -> 36.5 ms). Not
        // for an A this call packed (still in cache: the 1024^3 product was
        // 2-3 % slower with them). Also where a panel meets a
        // single B panel (Winograd's 16-tile products on 7x7 and 14x14
        // images, whose 16 or 36 transformed weight matrices stream from
        // DRAM): ResNet-18 at 1 thread 22.8 -> 21.4 ms, at 2 11.5 -> 10.8
        // (mote-bench, six alternating rounds, medians), its 7x7 layers 1.97
        // -> 1.58 ms each (1.48 alone, weights in cache); MobileNetV2 and
        // SqueezeNet within 1 % either way. Two panels ahead was slower
        // (21.9 ms). A's packed panels are contiguous across K blocks: a next
        // one exists unless this is the last panel of the last block.
        const bool prefetch = job.pa_prepacked && (i0 + kMR < rows || blk + 1 < blocks.count);
        const uintptr_t next_panel = prefetch ? reinterpret_cast<uintptr_t>(job.pa + k0 * rows + (i0 + h) * kc) : 0;
        // Every other k, the next two steps' kMR floats each: the panel,
        // no further.
        sp.prefetch_shift = 1;
        sp.prefetch_step = 2 * kMR * sizeof(float);
        for (size_t j0 = n0; j0 < n1; j0 += NR) {
          sp.prefetch = j0 == n0 ? next_panel : 0;
          tile(i0, j0, sp);
        }
        if (sp.epilogue && job.activation) {
          // The panel's rows of this slab are final and still in L1/L2.
          for (size_t r = 0; r < h; ++r) {
            job.activation(job.activation_state, job.C + (i0 + r) * ldc + n0, static_cast<int64_t>(n1 - n0));
          }
        }
      }
    }
  }
}

// Panels [panel_begin, panel_end) of an indexed A (rows x K, element (i, k)
// at data[row_offsets[i] + col_offsets[k]]) in PackA's layout: a conv's
// patches, gathered from a padded copy of its input as they are packed
// (no stride a plain vector load could follow: rows jump at the end of
// each image row). A whole panel of kMR rows takes one vector gather per k
// where the offsets fit the gather's 32-bit indices (`narrow`), on targets
// whose vectors hold a panel's rows in whole vectors (perf had ResNet-50 at
// 1.6 % in the function holding the scalar loop; its 14x14 stride-2 3x3
// layer 2.77 -> 2.35 ms per op at 1 thread with gathers). The scalar loop
// stays for the rest.
void PackAIndexed(const float* data, const int64_t* row_offsets, const int64_t* col_offsets, bool narrow,
                  int64_t rows, int64_t K, int64_t panel_begin, int64_t panel_end, float* dst) {
  const KBlocks blocks(K, static_cast<int64_t>(kKC));
  const size_t m = static_cast<size_t>(rows);
  const size_t i_end = std::min(m, static_cast<size_t>(panel_end) * kMR);
  const hn::CappedTag<float, kMR> d;
  const hn::RebindToSigned<decltype(d)> di;
  constexpr size_t kParts = kMR / hn::MaxLanes(d);
  const size_t lanes = hn::Lanes(d);
  const bool gather = narrow && HWY_TARGET != HWY_SCALAR && kParts * lanes == kMR;
  for (int64_t blk = 0; blk < blocks.count; ++blk) {
    const size_t k0 = static_cast<size_t>(blocks.begin(blk));
    const size_t kc = static_cast<size_t>(blocks.begin(blk + 1)) - k0;
    for (size_t i0 = static_cast<size_t>(panel_begin) * kMR; i0 < i_end; i0 += kMR) {
      const size_t h = std::min(kMR, m - i0);
      const int64_t* row = row_offsets + i0;
      float* panel = dst + k0 * m + i0 * kc;
      if (gather && h == kMR) {
        HWY_ALIGN int32_t narrow_rows[kMR];
        for (size_t r = 0; r < kMR; ++r) narrow_rows[r] = static_cast<int32_t>(row[r]);
        hn::Vec<decltype(di)> index[kParts];
        for (size_t q = 0; q < kParts; ++q) index[q] = hn::Load(di, narrow_rows + q * lanes);
        for (size_t k = 0; k < kc; ++k) {
          const float* src = data + col_offsets[k0 + k];
          for (size_t q = 0; q < kParts; ++q)
            hn::StoreU(hn::GatherIndex(d, src, index[q]), d, panel + k * kMR + q * lanes);
        }
        continue;
      }
      for (size_t k = 0; k < kc; ++k) {
        const float* src = data + col_offsets[k0 + k];
        for (size_t r = 0; r < h; ++r) panel[k * h + r] = src[row[r]];
      }
    }
  }
}

void PackA(bool trans, const float* A, int64_t lda, int64_t rows, int64_t K, int64_t panel_begin,
           int64_t panel_end, float* dst) {
  const KBlocks blocks(K, static_cast<int64_t>(kKC));
  const size_t ld = static_cast<size_t>(lda);
  const size_t m = static_cast<size_t>(rows);
  const size_t i_begin = static_cast<size_t>(panel_begin) * kMR;
  const size_t i_end = std::min(m, static_cast<size_t>(panel_end) * kMR);
  for (int64_t blk = 0; blk < blocks.count; ++blk) {
    const size_t k0 = static_cast<size_t>(blocks.begin(blk));
    const size_t kc = static_cast<size_t>(blocks.begin(blk + 1)) - k0;
    float* block = dst + k0 * m;
    if (trans) {
      // Rows of A run along i. Copy a group of panels row by row: 512 source
      // bytes per row keep the reads sequential enough for the prefetcher,
      // while the group's panels (16 x kc x 8 floats) stay in L2. Panel by
      // panel would read 32 bytes per row; all panels at once would scatter
      // the writes over all of M.
      constexpr size_t kGroup = std::max<size_t>(1, 512 / (kMR * sizeof(float))) * kMR;
      for (size_t g0 = i_begin; g0 < i_end; g0 += kGroup) {
        const size_t g1 = std::min(i_end, g0 + kGroup);
        for (size_t k = 0; k < kc; ++k) {
          const float* src = A + (k0 + k) * ld;
          size_t i0 = g0;
          for (; i0 + kMR <= g1; i0 += kMR) {
            std::memcpy(block + i0 * kc + k * kMR, src + i0, kMR * sizeof(float));
          }
          if (i0 < g1) {
            const size_t h = g1 - i0;
            std::memcpy(block + i0 * kc + k * h, src + i0, h * sizeof(float));
          }
        }
      }
    } else {  // rows of A run along k: transpose each panel
      for (size_t i0 = i_begin; i0 < i_end; i0 += kMR) {
        const size_t h = std::min(kMR, i_end - i0);
        Transpose(A + i0 * ld + k0, ld, h, kc, block + i0 * kc, h);
      }
    }
  }
}

void PackB(bool trans, const float* B, int64_t ldb, int64_t K, int64_t cols, int64_t panel_begin, int64_t panel_end,
           float* dst, const int64_t* row_offsets) {
  const size_t L = hn::Lanes(DF());
  const size_t NR = kNV * L;
  const size_t n = static_cast<size_t>(cols);
  const size_t padded_cols = (n + L - 1) / L * L;
  const size_t j_begin = static_cast<size_t>(panel_begin) * NR;
  const size_t j_end = std::min(n, static_cast<size_t>(panel_end) * NR);
  const KBlocks blocks(K, static_cast<int64_t>(kKC));
  for (int64_t blk = 0; blk < blocks.count; ++blk) {
    const size_t k0 = static_cast<size_t>(blocks.begin(blk));
    const size_t kc = static_cast<size_t>(blocks.begin(blk + 1)) - k0;
    PackBBlock(trans, B, static_cast<size_t>(ldb), row_offsets, k0, kc, j_begin, j_end,
               dst + k0 * padded_cols + j_begin * kc);
  }
}

}  // namespace mote::cpu::gemm_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::cpu::gemm_detail {

HWY_EXPORT(GetShape);
HWY_EXPORT(ComputeTile);
HWY_EXPORT(PackA);
HWY_EXPORT(PackAIndexed);
HWY_EXPORT(PackB);

KernelShape kernel_shape() { return HWY_DYNAMIC_DISPATCH(GetShape)(); }

std::vector<int64_t> targets_for_test() { return hwy::SupportedAndGeneratedTargets(); }

void force_target_for_test(int64_t target) { hwy::SetSupportedTargetsForTest(target); }

void compute_tile(const TileJob& job) { HWY_DYNAMIC_DISPATCH(ComputeTile)(job); }

void pack_a(bool trans, const float* A, int64_t lda, int64_t rows, int64_t K,
            int64_t panel_begin, int64_t panel_end, float* dst) {
  HWY_DYNAMIC_DISPATCH(PackA)(trans, A, lda, rows, K, panel_begin, panel_end, dst);
}

void pack_a_indexed(const float* data, const int64_t* row_offsets, const int64_t* col_offsets, bool narrow,
                    int64_t rows, int64_t K, int64_t panel_begin, int64_t panel_end, float* dst) {
  HWY_DYNAMIC_DISPATCH(PackAIndexed)(data, row_offsets, col_offsets, narrow, rows, K, panel_begin, panel_end, dst);
}

void pack_b(bool trans, const float* B, int64_t ldb, int64_t K, int64_t cols, int64_t panel_begin, int64_t panel_end,
            float* dst, const int64_t* row_offsets) {
  HWY_DYNAMIC_DISPATCH(PackB)(trans, B, ldb, K, cols, panel_begin, panel_end, dst, row_offsets);
}

}  // namespace mote::cpu::gemm_detail
#endif  // HWY_ONCE
