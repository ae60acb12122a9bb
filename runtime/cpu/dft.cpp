// Optimised DFT: a fast Fourier transform per signal, O(n log n) where the
// reference's direct sum is O(n^2) (a 65,536-point signal: 4 * 10^9 complex
// products against about 10^6). Power-of-two lengths take an iterative
// radix-2 transform; any other length n takes Bluestein's algorithm, which
// writes the transform as a convolution with a chirp, computed by radix-2
// transforms of a power of two m >= 2n - 1. In double, as the reference.
// Signals spread over the pool, each with scratch of its own.
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/dft.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::cpu {
namespace {

using Complex = std::complex<double>;

// Bluestein's scratch for n points is three arrays of m < 4n complex
// doubles (32 MB each at this length); past it the kernel refuses rather
// than take gigabytes.
constexpr int64_t kMaxLength = int64_t{1} << 20;

int64_t next_power_of_two(int64_t n) {
  int64_t m = 1;
  while (m < n) m *= 2;
  return m;
}

// Radix-2 transform of a power-of-two length, in place, with the twiddles
// exp(-2 pi i k / m) for k < m / 2; `inverse` conjugates them (no scaling).
void fft_pow2(Complex* a, int64_t m, const std::vector<Complex>& twiddles, bool inverse) {
  for (int64_t i = 1, j = 0; i < m; ++i) {  // bit-reversal permutation
    int64_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int64_t len = 2; len <= m; len *= 2) {
    const int64_t half = len / 2, step = m / len;
    for (int64_t start = 0; start < m; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Complex w = inverse ? std::conj(twiddles[static_cast<size_t>(k * step)]) : twiddles[static_cast<size_t>(k * step)];
        const Complex u = a[start + k], v = a[start + k + half] * w;
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
  }
}

// What every signal of one run shares: twiddles, and for Bluestein the
// chirp and the transformed convolution kernel.
class FftPlan {
 public:
  FftPlan(int64_t n, bool inverse) : n_(n), inverse_(inverse) {
    const bool pow2 = (n & (n - 1)) == 0;
    m_ = pow2 ? n : next_power_of_two(2 * n - 1);
    twiddles_.resize(static_cast<size_t>(m_ / 2));
    for (int64_t k = 0; k < m_ / 2; ++k) {
      twiddles_[static_cast<size_t>(k)] = std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(m_));
    }
    if (pow2) return;
    // chirp[k] = exp(sign * pi * i * k^2 / n), k^2 taken mod 2n so that the
    // angle stays small and exact.
    const double sign = inverse ? 1.0 : -1.0;
    chirp_.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      const auto k2 = static_cast<double>((k * k) % (2 * n));
      chirp_[static_cast<size_t>(k)] = std::polar(1.0, sign * std::numbers::pi * k2 / static_cast<double>(n));
    }
    // The kernel conj(chirp[|j|]) for -n < j < n, wrapped around m.
    kernel_.assign(static_cast<size_t>(m_), Complex{});
    for (int64_t k = 0; k < n; ++k) {
      kernel_[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
      if (k > 0) kernel_[static_cast<size_t>(m_ - k)] = kernel_[static_cast<size_t>(k)];
    }
    fft_pow2(kernel_.data(), m_, twiddles_, false);
  }

  // Complex values each thread needs for transform().
  size_t scratch_size() const { return static_cast<size_t>(m_); }

  // signal[0, n) becomes its transform (unscaled); scratch holds
  // scratch_size() values.
  void transform(Complex* signal, Complex* scratch) const {
    if (chirp_.empty()) {
      fft_pow2(signal, m_, twiddles_, inverse_);
      return;
    }
    for (int64_t k = 0; k < m_; ++k) {
      scratch[k] = k < n_ ? signal[k] * chirp_[static_cast<size_t>(k)] : Complex{};
    }
    fft_pow2(scratch, m_, twiddles_, false);
    for (int64_t k = 0; k < m_; ++k) scratch[k] *= kernel_[static_cast<size_t>(k)];
    fft_pow2(scratch, m_, twiddles_, true);
    const double scale = 1.0 / static_cast<double>(m_);
    for (int64_t f = 0; f < n_; ++f) signal[f] = scratch[f] * scale * chirp_[static_cast<size_t>(f)];
  }

 private:
  int64_t n_, m_ = 0;
  bool inverse_;
  std::vector<Complex> twiddles_, chirp_, kernel_;
};

template <class T>
void dft_typed(KernelContext& ctx, const DftGeometry& g, const fb::DftAttrsT& a) {
  const Tensor& x = ctx.in(0);
  const int64_t in_parts = x.shape().back(), out_parts = g.out.back();
  const AxisSplit in_split = split_at_axis(Shape(x.shape().begin(), x.shape().end() - 1), g.axis);
  const int64_t out_len = g.out[static_cast<size_t>(g.axis)];
  const int64_t n = g.length;
  const FftPlan plan(n, a.inverse);
  const T* src = x.data<T>();
  T* dst = ctx.out(0).data<T>();
  ctx.pool->parallel_for(in_split.outer * in_split.inner, 1, [&](int64_t begin, int64_t end) {
    std::vector<Complex> signal(static_cast<size_t>(n)), scratch(plan.scratch_size());
    for (int64_t s = begin; s < end; ++s) {
      const int64_t o = s / in_split.inner, i = s % in_split.inner;
      for (int64_t k = 0; k < n; ++k) {
        const DftSource at = dft_source(a, in_split, n, k);
        if (at.index < 0) {
          signal[static_cast<size_t>(k)] = {};
          continue;
        }
        const T* e = src + ((o * in_split.axis + at.index) * in_split.inner + i) * in_parts;
        const Complex v{static_cast<double>(e[0]), in_parts == 2 ? static_cast<double>(e[1]) : 0.0};
        signal[static_cast<size_t>(k)] = at.conjugate ? std::conj(v) : v;
      }
      plan.transform(signal.data(), scratch.data());
      const double scale = a.inverse ? 1.0 / static_cast<double>(n) : 1.0;
      for (int64_t f = 0; f < out_len; ++f) {
        T* out = dst + ((o * out_len + f) * in_split.inner + i) * out_parts;
        out[0] = static_cast<T>(signal[static_cast<size_t>(f)].real() * scale);
        if (out_parts == 2) out[1] = static_cast<T>(signal[static_cast<size_t>(f)].imag() * scale);
      }
    }
  });
}

Status dft(KernelContext& ctx) {
  const auto& a = attrs<fb::DftAttrsT>(ctx.op);
  auto g = dft_geometry(a, ctx.in(0).shape(), optional_input(ctx, 1), optional_input(ctx, 2));
  if (!g.ok()) return ctx.fail(g.status().message());
  if (g->length > kMaxLength) {
    return ctx.fail("dft_length " + std::to_string(g->length) + " is above the " + std::to_string(kMaxLength) +
                    " points the CPU kernel transforms");
  }
  switch (ctx.in(0).dtype()) {
    case DType::F32: dft_typed<float>(ctx, *g, a); return {};
    case DType::F64: dft_typed<double>(ctx, *g, a); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(DFT, mote::cpu::dft);
