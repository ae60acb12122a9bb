// The int8 kernels' shared SIMD pieces: the requantising store that turns a
// vector of exact int32 sums into 8-bit outputs (qgemm.hpp's QRequantize),
// and VNNI's four-byte dot product. Used by the GEMM (qgemm.cpp) and the
// depthwise kernel (qdepthwise_quads.cpp), so both round alike.
//
// A per-target -inl header: include it after hwy/highway.h in a file compiled
// through hwy/foreach_target.h.
#if defined(MOTE_CPU_QREQUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_CPU_QREQUANTIZE_INL_H_
#undef MOTE_CPU_QREQUANTIZE_INL_H_
#else
#define MOTE_CPU_QREQUANTIZE_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "runtime/cpu/qgemm.hpp"
#include "runtime/cpu/simd_store-inl.h"
#include "runtime/cpu/simd_tile_activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mote::qrequantize {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using cpu::QRequantize;

#if HWY_TARGET == HWY_AVX3_DL
// acc + the sums of four products of bytes, lane by lane: `u8` unsigned,
// `s8` signed (vpdpbusd). In asm: Highway 1.0's AVX3_DL target enables the
// 256-bit VEX form of VNNI only (the CPUs of that target all have the
// 512-bit one), so the intrinsic needs the feature added, which GCC's
// `#pragma GCC target` did and clang's compiler ignored (a clang build
// failed here). The asm measured as fast as GCC's intrinsic
// (mote_microbench Qgemm).
HWY_INLINE __m512i DotQuads(__m512i acc, __m512i u8, __m512i s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
}
#endif

#if HWY_TARGET != HWY_SCALAR
using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using DF = hn::Repartition<float, D32>;

// The residual elements of one vector of columns (the first `count` when
// count < lanes; the rest are zero), widened to int32.
template <class TR>
HWY_INLINE V32 LoadResidual(D32 d, const void* residual, int64_t count) {
  const hn::Rebind<TR, D32> dr;
  const auto* r = static_cast<const TR*>(residual);
  if (count >= static_cast<int64_t>(hn::Lanes(d))) return hn::PromoteTo(d, hn::LoadU(dr, r));
  HWY_ALIGN TR buffer[hn::MaxLanes(dr)] = {};
  std::memcpy(buffer, r, static_cast<size_t>(count));
  return hn::PromoteTo(d, hn::Load(dr, buffer));
}

// An int32 output (MatMulInteger's and ConvInteger's): the sums plus the
// bias, stored as they are, nothing requantised.
HWY_INLINE void StoreRow(D32 d, V32 sum, int32_t bias, float /*multiplier*/, const QRequantize& /*rq*/,
                         const void* /*residual*/, int32_t* HWY_RESTRICT out, int64_t count) {
  simd_store::HWY_NAMESPACE::StoreFirstN(d, hn::Add(sum, hn::Set(d, bias)), static_cast<size_t>(count), out);
}

// Requantises one vector of sums of row r and stores its first `count`
// columns (all of them when count >= the vector's lanes); `residual` is
// this vector's residual elements, or null.
template <class T>
HWY_INLINE void StoreRow(D32 d, V32 sum, int32_t bias, float multiplier, const QRequantize& rq, const void* residual,
                         T* HWY_RESTRICT out, int64_t count) {
  const DF df;
  const hn::Rebind<T, D32> dt;
  auto v = hn::Mul(hn::ConvertTo(df, hn::Add(sum, hn::Set(d, bias))), hn::Set(df, multiplier));
  if (residual) {
    const V32 r = rq.residual_dtype == DType::I8 ? LoadResidual<int8_t>(d, residual, count)
                                                 : LoadResidual<uint8_t>(d, residual, count);
    v = hn::MulAdd(hn::ConvertTo(df, hn::Sub(r, hn::Set(d, rq.residual_zero))), hn::Set(df, rq.residual_multiplier),
                   v);
  }
  if (rq.activation != cpu::TileActivation::kNone) {
    const auto real = hn::Mul(v, hn::Set(df, rq.y_scale));
    v = hn::Div(simd_tile_activation::HWY_NAMESPACE::Activate(df, rq.activation, real), hn::Set(df, rq.y_scale));
  }
  v = hn::Min(hn::Max(v, hn::Set(df, rq.lo)), hn::Set(df, rq.hi));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // AVX-512: vcvtps2dq rounds half to even (the session's rounding mode),
  // the zero point is added, and vpmovdb keeps each lane's low byte, which
  // is the output since the clamp kept it in the type's range. Three
  // instructions where the portable path below takes five: layers of few
  // depth groups spend more in this store than in their products
  // (MobileNetV2's 16 -> 96 channel 1x1 layer on 112x112 0.115 -> 0.100 ms,
  // the whole int8 network 1.70 -> 1.61 ms at 1 thread).
  static_assert(sizeof(T) == 1 && hn::MaxLanes(D32()) == 16, "16 lanes narrowed to bytes");
  const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v.raw), _mm512_set1_epi32(rq.zero)));
  if (count >= 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
  } else {
    _mm_mask_storeu_epi8(out, static_cast<__mmask16>((1u << count) - 1), bytes);
  }
  (void)dt;
#else
  // Round half to even and add the zero point: adding 1.5 * 2^23 (bits
  // 0x4B400000) leaves round(v) in the low bits of the sum's mantissa, exact
  // for |v| < 2^22, and v is within the 8-bit range now (session runs round
  // to nearest: denormals.hpp). NearestInt's overflow handling and the
  // saturating DemoteTo (three packs and a permute on AVX-512) cost as much
  // as the rest of a depthwise layer's store. int8 outputs are offset by 128
  // into [0, 255], the range U8FromU32 takes on every target (EMU128's
  // saturates; the others keep the low byte), and their top bit flipped
  // back after.
  constexpr int32_t kOffset = std::is_same_v<T, int8_t> ? 128 : 0;
  const V32 q = hn::Sub(hn::BitCast(d, hn::Add(v, hn::Set(df, 12582912.0f))),
                        hn::Set(d, int32_t{0x4B400000} - rq.zero - kOffset));
  // U8FromU32, not TruncateTo: Highway 1.0.3's TruncateTo to bytes on
  // AVX3_DL permutes dwords by byte indices (every lane but the first came
  // out 0 in QLinearConvOps).
  const hn::Rebind<uint32_t, D32> du32;
  const hn::Rebind<uint8_t, D32> du8;
  auto bytes = hn::U8FromU32(hn::BitCast(du32, q));
  if constexpr (kOffset != 0) bytes = hn::Xor(bytes, hn::Set(du8, uint8_t{0x80}));
  simd_store::HWY_NAMESPACE::StoreFirstN(dt, hn::BitCast(dt, bytes), static_cast<size_t>(count), out);
#endif
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace mote::qrequantize
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
