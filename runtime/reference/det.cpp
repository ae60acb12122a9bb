// Reference Det: Gaussian elimination with partial pivoting, in double; the
// CPU backend runs it too.
#include <cmath>
#include <utility>
#include <vector>

#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

double determinant(std::vector<double> a, int64_t m) {
  double det = 1;
  for (int64_t col = 0; col < m; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < m; ++r) {
      if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
    }
    if (a[pivot * m + col] == 0) return 0;
    if (pivot != col) {
      for (int64_t k = 0; k < m; ++k) std::swap(a[pivot * m + k], a[col * m + k]);
      det = -det;
    }
    det *= a[col * m + col];
    for (int64_t r = col + 1; r < m; ++r) {
      const double factor = a[r * m + col] / a[col * m + col];
      for (int64_t k = col; k < m; ++k) a[r * m + k] -= factor * a[col * m + k];
    }
  }
  return det;
}

template <class T>
void det_typed(const Tensor& x, Tensor& out) {
  const int64_t m = x.dim(x.rank() - 1);
  for (int64_t b = 0; b < out.numel(); ++b) {
    std::vector<double> a(static_cast<size_t>(m * m));
    for (int64_t i = 0; i < m * m; ++i) a[static_cast<size_t>(i)] = x.data<T>()[b * m * m + i];
    out.data<T>()[b] = static_cast<T>(determinant(std::move(a), m));
  }
}

Status det(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: det_typed<float>(ctx.in(0), ctx.out(0)); return {};
    case DType::F64: det_typed<double>(ctx.in(0), ctx.out(0)); return {};
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Det, mote::reference::det);
