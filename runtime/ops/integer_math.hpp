// Integer arithmetic of the elementwise ops where C++ leaves the result
// undefined (signed overflow, division by zero) and ONNX says nothing: Mote
// wraps like two's complement hardware and numpy, and defines x / 0 = 0 (as
// numpy does for integers) instead of trapping. Also Pow with integer
// operands. One definition for the reference and the optimised kernels, so
// they agree and a model cannot crash either.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/ops/cast.hpp"

namespace mote {

template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
T wrapping_add(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
}

template <class T>
T wrapping_sub(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
}

template <class T>
T wrapping_mul(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
}

// -a; the most negative value maps to itself.
template <class T>
T wrapping_negate(T a) {
  return wrapping_sub(T{0}, a);
}

// C's truncating division (ONNX Div on integers). x / 0 is 0; the most
// negative value divided by -1 wraps to itself (x86 would trap on both).
template <class T>
T truncating_divide(T a, T b) {
  if (b == 0) return 0;
  if (b == -1) return wrapping_negate(a);
  return static_cast<T>(a / b);
}

// Mod. x mod 0 is 0 (like division); the most negative value mod -1 is 0.
// `fmod` takes the sign of the dividend (C's %), otherwise the sign of the
// divisor (Python's %).
template <class T>
T integer_mod(T a, T b, bool fmod) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  T r = static_cast<T>(a % b);
  if constexpr (std::is_signed_v<T>) {
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

// Float Mod: std::fmod, or with the divisor's sign (numpy's np.mod).
template <class F>
F float_mod(F a, F b, bool fmod) {
  F r = std::fmod(a, b);
  if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// base^exponent by squaring, wrapping on overflow. A negative exponent gives
// the truncated fraction: 1 for base 1, +-1 for base -1, 0 otherwise.
template <class T, class E>
T integer_power(T base, E exponent) {
  static_assert(std::is_integral_v<T> && std::is_integral_v<E>);
  if (exponent < 0) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (base == -1) return (exponent & 1) ? T{-1} : T{1};
    }
    return 0;
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = wrapping_mul(result, base);
    exponent = static_cast<E>(exponent >> 1);
    if (exponent != 0) base = wrapping_mul(base, base);
  }
  return result;
}

// ONNX Pow(X, Y) for one element, X and Y each f32, i32 or i64, the result in
// X's type. Integer powers are exact (wrapping); otherwise the power is taken
// in double and converted like Cast (numpy's np.power(x, y).astype(x.dtype),
// with Cast's saturation where numpy is undefined).
template <class TA, class TB>
TA pow_element(TA base, TB exponent) {
  if constexpr (std::is_integral_v<TA> && std::is_integral_v<TB>) {
    return integer_power(base, exponent);
  } else {
    return convert_element<TA>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  }
}

}  // namespace mote
