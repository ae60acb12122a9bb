// Reference RotaryEmbedding: each head's feature pairs (x1, x2) become
// (cos * x1 - sin * x2, sin * x1 + cos * x2); features past the rotary span
// are copied. The CPU backend runs this kernel too.
#include <string>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

template <class T>
Status rotary_typed(KernelContext& ctx) {
  const auto& a = attrs<fb::RotaryAttrsT>(ctx.op);
  const Tensor& x = ctx.in(0);
  const bool four_d = x.rank() == 4;
  const int64_t batch = x.dim(0);
  const int64_t heads = four_d ? x.dim(1) : a.num_heads;
  const int64_t seq = four_d ? x.dim(2) : x.dim(1);
  const int64_t size = four_d ? x.dim(3) : x.dim(2) / a.num_heads;
  const int64_t rot = a.rotary_embedding_dim > 0 ? a.rotary_embedding_dim : size;
  const int64_t half = rot / 2;
  const Tensor* positions = ctx.has_input(3) ? &ctx.in(3) : nullptr;
  const T* cos_cache = ctx.in(1).data<T>();
  const T* sin_cache = ctx.in(2).data<T>();
  const T* in = x.data<T>();
  T* out = ctx.out(0).data<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < seq; ++s) {
      // The cache row of this position.
      int64_t row = b * seq + s;
      if (positions) {
        row = positions->dtype() == DType::I64 ? positions->data<int64_t>()[b * seq + s]
                                               : positions->data<int32_t>()[b * seq + s];
        if (row < 0 || row >= ctx.in(1).dim(0)) {
          return ctx.fail("position_ids element " + std::to_string(b * seq + s) + " is " + std::to_string(row) +
                          ", outside the caches' " + std::to_string(ctx.in(1).dim(0)) + " positions");
        }
      }
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = four_d ? ((b * heads + h) * seq + s) * size : ((b * seq + s) * heads + h) * size;
        for (int64_t e = rot; e < size; ++e) out[base + e] = in[base + e];
        for (int64_t p = 0; p < half; ++p) {
          const int64_t i1 = a.interleaved ? 2 * p : p;
          const int64_t i2 = a.interleaved ? 2 * p + 1 : p + half;
          const double c = static_cast<double>(cos_cache[row * half + p]);
          const double sn = static_cast<double>(sin_cache[row * half + p]);
          const double x1 = static_cast<double>(in[base + i1]);
          const double x2 = static_cast<double>(in[base + i2]);
          out[base + i1] = static_cast<T>(c * x1 - sn * x2);
          out[base + i2] = static_cast<T>(sn * x1 + c * x2);
        }
      }
    }
  }
  return {};
}

Status rotary(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: return rotary_typed<float>(ctx);
    case DType::F64: return rotary_typed<double>(ctx);
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(RotaryEmbedding, mote::reference::rotary);
