// Reference DFT: the O(n^2) sum per signal, in double (the CPU backend's
// kernel, runtime/cpu/dft.cpp, is a fast transform). dft_source says which
// input value each point of the signal is.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/ops/dft.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote::reference {
namespace {

template <class T>
Status dft_typed(KernelContext& ctx, const DftGeometry& g, const fb::DftAttrsT& a) {
  const Tensor& x = ctx.in(0);
  const int64_t in_parts = x.shape().back(), out_parts = g.out.back();
  const AxisSplit in_split = split_at_axis(Shape(x.shape().begin(), x.shape().end() - 1), g.axis);
  const int64_t out_len = g.out[static_cast<size_t>(g.axis)];
  const int64_t n = g.length;
  const double sign = a.inverse ? 1.0 : -1.0;
  std::vector<std::complex<double>> signal(static_cast<size_t>(n));
  for (int64_t o = 0; o < in_split.outer; ++o) {
    for (int64_t i = 0; i < in_split.inner; ++i) {
      // The n input values along the axis (complex), padded with zeros.
      for (int64_t k = 0; k < n; ++k) {
        std::complex<double> v = 0;
        const DftSource at = dft_source(a, in_split, n, k);
        if (at.index >= 0) {
          const T* e = x.data<T>() + ((o * in_split.axis + at.index) * in_split.inner + i) * in_parts;
          v = {static_cast<double>(e[0]), in_parts == 2 ? static_cast<double>(e[1]) : 0.0};
          if (at.conjugate) v = std::conj(v);
        }
        signal[static_cast<size_t>(k)] = v;
      }
      for (int64_t f = 0; f < out_len; ++f) {
        std::complex<double> sum = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double angle = sign * 2 * std::numbers::pi * static_cast<double>((f * k) % n) / static_cast<double>(n);
          sum += signal[static_cast<size_t>(k)] * std::complex<double>(std::cos(angle), std::sin(angle));
        }
        if (a.inverse) sum /= static_cast<double>(n);
        T* dst = ctx.out(0).data<T>() + ((o * out_len + f) * in_split.inner + i) * out_parts;
        dst[0] = static_cast<T>(sum.real());
        if (out_parts == 2) dst[1] = static_cast<T>(sum.imag());
      }
    }
  }
  return {};
}

Status dft(KernelContext& ctx) {
  const auto& a = attrs<fb::DftAttrsT>(ctx.op);
  auto g = dft_geometry(a, ctx.in(0).shape(), optional_input(ctx, 1), optional_input(ctx, 2));
  if (!g.ok()) return ctx.fail(g.status().message());
  switch (ctx.in(0).dtype()) {
    case DType::F32: return dft_typed<float>(ctx, *g, a);
    case DType::F64: return dft_typed<double>(ctx, *g, a);
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(DFT, mote::reference::dft);
