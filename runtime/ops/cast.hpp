// How one element converts between dtypes: the Cast op's definition, used by
// its reference kernel and by the scalar paths of the optimised one (and by
// Pow with an integer base and a float exponent).
//
// ONNX and C agree on most of it: float to integer truncates toward zero;
// integers narrow by wrapping (two's complement, as numpy); to bool is "!= 0"
// (so NaN is true, as numpy); from bool is 0 or 1; float narrowing rounds to
// nearest even. Where both leave the result undefined Mote chooses, so that a
// model never reaches C++ undefined behaviour:
//   - float to integer: NaN gives 0, and values past the target's range
//     saturate to its minimum or maximum (what ARM's conversion instructions do);
//   - f64 to f16 rounds once, directly (not via a double rounding through f32).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/core/half.hpp"

namespace mote {

// The storage type of f16 elements in conversions: distinct from the
// integer types so that overloads cannot confuse it with a u16 number.
struct HalfBits {
  uint16_t bits;
};

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;

// Truncates a float toward zero into integer type I; NaN -> 0, saturating.
template <class I, class F>
I float_to_integer(F v) {
  using Limits = std::numeric_limits<I>;
  // Both bounds are powers of two (or 0), exact in any float type.
  constexpr F lowest = static_cast<F>(Limits::min());
  constexpr F past_max = static_cast<F>(Limits::max() / 2 + 1) * F{2};
  if (std::isnan(v)) return 0;
  if (v <= lowest) return Limits::min();
  if (v >= past_max) return Limits::max();
  return static_cast<I>(v);
}

// Rounds x to float with round-to-odd: toward zero, then set the lowest
// mantissa bit if anything was lost. A second rounding of the result to a
// format at least two bits narrower (f16 has 13 fewer) is then correctly
// rounded, which a plain double -> float -> half is not.
inline float round_to_odd_float(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) == x || std::isnan(x)) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Converts one element. HalfBits stands for f16, bool for the Bool dtype.
template <class To, class From>
To convert_element(From v) {
  if constexpr (std::is_same_v<From, HalfBits>) {
    return convert_element<To>(half_to_float(v.bits));
  } else if constexpr (std::is_same_v<To, HalfBits>) {
    if constexpr (std::is_same_v<From, double>) {
      return HalfBits{float_to_half(round_to_odd_float(v))};
    } else {
      // Exact for every value f16 does not overflow on (|v| < 65520), so the
      // single rounding happens in float_to_half.
      return HalfBits{float_to_half(static_cast<float>(v))};
    }
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(v ? 1 : 0);
  } else if constexpr (is_float_v<From> && std::is_integral_v<To>) {
    return float_to_integer<To>(v);
  } else {
    // Integer narrowing wraps (well defined since C++20); to float rounds.
    return static_cast<To>(v);
  }
}

}  // namespace mote
