// Row functions of the binary elementwise ops and Where: the inner loops that
// the broadcast iterator (broadcast.hpp) calls once per contiguous row. Float
// arithmetic and comparisons use Highway vectors; integer and bool rows are
// plain loops compiled per instruction set, which the compiler vectorises.
// Each lookup picks the best instruction set of the machine at run time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mote/tensor.hpp"

namespace mote::cpu {

enum class BinaryFn : uint8_t {
  kAdd, kSub, kMul, kDiv, kPow, kMin, kMax, kPRelu,
  kMod, kFmod,  // Mod with the divisor's sign / the dividend's (fmod=1)
  kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual,
  kAnd, kOr, kXor,
  kBitAnd, kBitOr, kBitXor,
};

// out[i] = fn(a[i * a_step], b[i * b_step]) for i < n, where a step is 1 (the
// operand walks the row) or 0 (one element repeated). out may alias an
// operand that walks. Comparisons, And and Or write bool.
using BinaryRowFn = void (*)(const void* a, int64_t a_step, const void* b, int64_t b_step, void* out, int64_t n);

// The row function of `fn` for operands of dtypes a and b (they differ only
// for Pow), or nullptr when the combination is unsupported. Integer
// semantics are those of runtime/ops/integer_math.hpp.
BinaryRowFn binary_row_fn(BinaryFn fn, DType a, DType b);

// out[i] = cond[i * c_step] ? x[i * x_step] : y[i * y_step], elements of
// `element_size` bytes (1, 2, 4 or 8; nullptr otherwise).
using WhereRowFn = void (*)(const bool* cond, int64_t c_step, const void* x, int64_t x_step, const void* y,
                            int64_t y_step, void* out, int64_t n);
WhereRowFn where_row_fn(size_t element_size);

}  // namespace mote::cpu
