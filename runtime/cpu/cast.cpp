// Optimised CPU kernel of Cast: a parallel copy when the dtype does not
// change, else the conversion loop of cast_simd over chunks in parallel.
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/cast_simd.hpp"
#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

// Elements per parallel task.
constexpr int64_t kGrain = 1 << 14;

Status cast(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  if (in.dtype() == out.dtype()) {
    copy_contiguous(in.raw(), out.raw(), in.bytes(), *ctx.pool);
    return {};
  }
  const CastRowFn convert = cast_row_fn(in.dtype(), out.dtype());
  if (convert == nullptr) {
    return ctx.fail(std::string("cannot cast ") + dtype_name(in.dtype()) + " to " + dtype_name(out.dtype()));
  }
  const auto* x = static_cast<const char*>(in.raw());
  auto* y = static_cast<char*>(out.raw());
  const int64_t in_size = static_cast<int64_t>(dtype_size(in.dtype()));
  const int64_t out_size = static_cast<int64_t>(dtype_size(out.dtype()));
  ctx.pool->parallel_for(in.numel(), kGrain, [&](int64_t begin, int64_t end) {
    convert(x + begin * in_size, y + begin * out_size, end - begin);
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Cast, mote::cpu::cast);
