// Vectorised float unary functions: the loops behind the unary op kernels and
// the fused activations. Each call dispatches at run time to the best
// instruction set of the machine (Highway dynamic dispatch).
#pragma once

#include <cstdint>
#include <limits>

namespace mote::cpu {

enum class UnaryFn : uint8_t {
  kSqrt, kExp, kLog, kAbs, kNeg, kReciprocal,
  kRelu, kLeakyRelu, kSigmoid, kSiLU, kTanh, kHardSigmoid, kHardSwish, kElu, kSelu,
  kGeluErf, kGeluTanh, kErf, kSoftplus, kSin, kCos,
  kFloor, kCeil, kRound, kSign, kClip,
};

// What the parameterised functions read: LeakyRelu and Elu alpha; Selu alpha
// and gamma; HardSigmoid alpha and beta (HardSwish's are fixed); Clip lo, hi.
struct UnaryParams {
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};

// y[i] = fn(x[i]) for i < n, single-threaded; y may alias x. NaN inputs give
// NaN for every function.
void unary_f32(UnaryFn fn, const UnaryParams& params, const float* x, float* y, int64_t n);

// True for the functions costing tens of instructions per element (exp, log,
// erf, sin...), which deserve smaller parallel chunks.
bool unary_is_transcendental(UnaryFn fn);

}  // namespace mote::cpu
