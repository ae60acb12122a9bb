// Reference Trilu: copies the input and zeroes the other triangle of each
// matrix of the last two dimensions; the CPU backend runs it too.
#include <cstring>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

Status trilu(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  if (ctx.has_input(1) && ctx.in(1).numel() != 1) return ctx.fail("k must hold one value");
  const int64_t k = ctx.has_input(1) ? ctx.in(1).data<int64_t>()[0] : 0;
  const bool upper = attrs<fb::TriluAttrsT>(ctx.op).upper;
  const int64_t rows = in.dim(in.rank() - 2);
  const int64_t cols = in.dim(in.rank() - 1);
  const size_t element = dtype_size(in.dtype());
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t i = 0; i < in.numel(); ++i) {
    const int64_t col = i % cols;
    const int64_t row = (i / cols) % rows;
    const bool keep = upper ? col - row >= k : col - row <= k;
    if (keep) {
      std::memcpy(dst + i * static_cast<int64_t>(element), src + i * static_cast<int64_t>(element), element);
    } else {
      std::memset(dst + i * static_cast<int64_t>(element), 0, element);
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Trilu, mote::reference::trilu);
