// Scalar activation functions shared by the unary shader and the fused
// epilogues of Conv, Gemm and MatMul. Codes must match
// runtime/vulkan/kernels/unary_codes.hpp.
#define ACT_IDENTITY 0
#define ACT_SQRT 1
#define ACT_EXP 2
#define ACT_LOG 3
#define ACT_ABS 4
#define ACT_NEG 5
#define ACT_RECIPROCAL 6
#define ACT_RELU 7
#define ACT_LEAKY_RELU 8
#define ACT_SIGMOID 9
#define ACT_TANH 10
#define ACT_HARD_SIGMOID 11
#define ACT_HARD_SWISH 12
#define ACT_ELU 13
#define ACT_SELU 14
#define ACT_GELU 15
#define ACT_GELU_TANH 16
#define ACT_ERF 17
#define ACT_SOFTPLUS 18
#define ACT_SIN 19
#define ACT_COS 20
#define ACT_FLOOR 21
#define ACT_CEIL 22
#define ACT_ROUND 23
#define ACT_SIGN 24
#define ACT_CLIP 25
#define ACT_SILU 26

// erf to ~1.5e-7 absolute (Abramowitz and Stegun 7.1.26); GLSL has none.
float erf_approx(float x) {
  float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-x * x));
}

float sigmoid_f(float x) { return 1.0 / (1.0 + exp(-x)); }

// Drivers differ on tanh of large arguments (some return NaN through exp
// overflow); clamping first is exact in f32 beyond |x| = 10.
float tanh_f(float x) { return tanh(clamp(x, -10.0, 10.0)); }

// a, b, c: the op's alpha, beta, gamma (Clip: min, max).
float activation(int code, float x, float a, float b, float c) {
  switch (code) {
    case ACT_SQRT: return sqrt(x);
    case ACT_EXP: return exp(x);
    case ACT_LOG: return log(x);
    case ACT_ABS: return abs(x);
    case ACT_NEG: return -x;
    case ACT_RECIPROCAL: return 1.0 / x;
    case ACT_RELU: return max(x, 0.0);
    case ACT_LEAKY_RELU: return x < 0.0 ? a * x : x;
    case ACT_SIGMOID: return sigmoid_f(x);
    case ACT_TANH: return tanh_f(x);
    case ACT_HARD_SIGMOID: return clamp(a * x + b, 0.0, 1.0);
    case ACT_HARD_SWISH: return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
    case ACT_ELU: return x > 0.0 ? x : a * (exp(x) - 1.0);
    case ACT_SELU: return x > 0.0 ? c * x : c * a * (exp(x) - 1.0);
    case ACT_GELU: return 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752));
    case ACT_GELU_TANH: return 0.5 * x * (1.0 + tanh_f(0.79788456080286536 * (x + 0.044715 * x * x * x)));
    case ACT_ERF: return erf_approx(x);
    case ACT_SOFTPLUS: return max(x, 0.0) + log(1.0 + exp(-abs(x)));
    case ACT_SIN: return sin(x);
    case ACT_COS: return cos(x);
    case ACT_FLOOR: return floor(x);
    case ACT_CEIL: return ceil(x);
    case ACT_ROUND: return roundEven(x);
    case ACT_SIGN: return sign(x);
    case ACT_CLIP: return min(max(x, a), b);
    case ACT_SILU: return x * sigmoid_f(x);
    default: return x;
  }
}
