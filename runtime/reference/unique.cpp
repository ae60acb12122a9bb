// Reference Unique: the grouping of runtime/ops/unique.hpp, then the
// distinct slices copied out (any dtype: bytes per slice element).
#include <cstring>

#include "runtime/core/kernel.hpp"
#include "runtime/ops/unique.hpp"

namespace mote::reference {
namespace {

Status unique(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  auto g = unique_groups(x, attrs<fb::UniqueAttrsT>(ctx.op));
  if (!g.ok()) return ctx.fail(g.status().message());
  const int64_t n = g->shape.empty() ? 1 : g->shape[static_cast<size_t>(g->axis)];
  int64_t outer = 1, inner = static_cast<int64_t>(dtype_size(x.dtype()));
  for (int a = 0; a < g->axis; ++a) outer *= g->shape[static_cast<size_t>(a)];
  for (size_t a = static_cast<size_t>(g->axis) + 1; a < g->shape.size(); ++a) inner *= g->shape[a];
  const auto distinct = static_cast<int64_t>(g->first.size());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  auto* dst = static_cast<uint8_t*>(ctx.out(0).raw());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t u = 0; u < distinct; ++u) {
      std::memcpy(dst + (o * distinct + u) * inner, src + (o * n + g->first[static_cast<size_t>(u)]) * inner,
                  static_cast<size_t>(inner));
    }
  }
  const std::vector<int64_t>* lists[] = {&g->first, &g->inverse, &g->counts};
  for (size_t k = 1; k < ctx.outputs.size() && k <= 3; ++k) {
    const std::vector<int64_t>& v = *lists[k - 1];
    std::copy(v.begin(), v.end(), ctx.out(k).data<int64_t>());
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Unique, mote::reference::unique);
