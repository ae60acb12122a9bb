// Optimised CPU kernels of the binary elementwise ops, the variadic Min/Max
// and Where: a broadcast plan (broadcast.hpp) cuts the output into rows, the
// pool runs chunks of them in parallel, and a vectorised row function
// (binary_simd.hpp) computes each row.
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/cpu/binary_simd.hpp"
#include "runtime/cpu/broadcast.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

// Output elements per parallel task: enough work (microseconds) to be worth
// handing to another thread. Pow's general path calls powf per element.
constexpr int64_t kGrain = 1 << 14;
constexpr int64_t kPowGrain = 1 << 11;

const char* byte_pointer(const Tensor& t) { return static_cast<const char*>(t.raw()); }
char* byte_pointer(Tensor& t) { return static_cast<char*>(t.raw()); }

bool writes_bool(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::kEqual: case BinaryFn::kLess: case BinaryFn::kGreater: case BinaryFn::kLessOrEqual:
    case BinaryFn::kGreaterOrEqual: case BinaryFn::kAnd: case BinaryFn::kOr: case BinaryFn::kXor:
      return true;
    default:
      return false;
  }
}

// out = fn(a, b), both broadcast to out's shape.
Status apply(KernelContext& ctx, BinaryFn fn, const Tensor& a, const Tensor& b, Tensor& out) {
  const BinaryRowFn row = binary_row_fn(fn, a.dtype(), b.dtype());
  const DType out_dtype = writes_bool(fn) ? DType::Bool : a.dtype();
  if (row == nullptr || out.dtype() != out_dtype) {
    return ctx.fail(std::string("unsupported dtypes ") + dtype_name(a.dtype()) + ", " + dtype_name(b.dtype()) +
                    " -> " + dtype_name(out.dtype()));
  }
  const BroadcastPlan plan = plan_broadcast(out.shape(), {a.shape(), b.shape()});
  const int64_t a_size = static_cast<int64_t>(dtype_size(a.dtype()));
  const int64_t b_size = static_cast<int64_t>(dtype_size(b.dtype()));
  const int64_t out_size = static_cast<int64_t>(dtype_size(out.dtype()));
  const char* pa = byte_pointer(a);
  const char* pb = byte_pointer(b);
  char* pout = byte_pointer(out);
  const int64_t a_step = plan.inner_step(0);
  const int64_t b_step = plan.inner_step(1);
  parallel_for_each_segment(*ctx.pool, plan, fn == BinaryFn::kPow ? kPowGrain : kGrain,
                            [&](const BroadcastSegment& s) {
                              row(pa + s.offsets[0] * a_size, a_step, pb + s.offsets[1] * b_size, b_step,
                                  pout + s.out_offset * out_size, s.length);
                            });
  return {};
}

// Whether `per_channel` is [1 or N, C, 1, 1] against the 4-D `full`.
bool is_per_channel(const Shape& per_channel, const Shape& full) {
  return per_channel.size() == 4 && full.size() == 4 && (per_channel[0] == 1 || per_channel[0] == full[0]) &&
         per_channel[1] == full[1] && per_channel[2] == 1 && per_channel[3] == 1;
}

// Channel-blocked operands (runtime/core/layout.hpp), float only: both of the
// output's shape, all three blocked; or one of the output's shape, blocked
// with the output, and the other per channel in NCHW (the
// squeeze-and-excitation scale of MobileNetV3 and EfficientNet: a Mul by
// [1, C, 1, 1]). The per-channel operand may come first for Add and Mul only.
template <BinaryFn kFn>
BlockedSupport binary_blocked(const KernelContext& ctx) {
  if (ctx.in(0).dtype() != DType::F32 || ctx.in(1).dtype() != DType::F32) return {};
  const Shape& out = ctx.out(0).shape();
  const Shape& a = ctx.in(0).shape();
  const Shape& b = ctx.in(1).shape();
  if (out.size() != 4) return {};
  if (a == out && b == out) return {0b11, true, 0b11};
  if (a == out && is_per_channel(b, out)) return {0b01, true, 0b01};
  const bool commutes = kFn == BinaryFn::kAdd || kFn == BinaryFn::kMul;
  if (commutes && b == out && is_per_channel(a, out)) return {0b10, true, 0b10};
  return {};
}

// fn over channel-blocked tensors (binary_blocked). The padding lanes are
// computed too: they hold whatever the blocks' producers left there.
Status apply_blocked(KernelContext& ctx, BinaryFn fn) {
  const BinaryRowFn row = binary_row_fn(fn, DType::F32, DType::F32);
  const Shape& shape = ctx.out(0).shape();
  const int64_t lanes = ctx.channel_block, blocks = (shape[1] + lanes - 1) / lanes;
  const int64_t pixels = shape[2] * shape[3], images = shape[0];
  float* out = ctx.out(0).data<float>();
  if (ctx.input_blocked(0) && ctx.input_blocked(1)) {
    const float* a = ctx.in(0).data<float>();
    const float* b = ctx.in(1).data<float>();
    ctx.pool->parallel_for(images * blocks * pixels * lanes, kGrain, [&](int64_t begin, int64_t end) {
      row(a + begin, 1, b + begin, 1, out + begin, end - begin);
    });
    return {};
  }
  const bool first_blocked = ctx.input_blocked(0);
  const Tensor& full = ctx.in(first_blocked ? 0 : 1);
  const Tensor& per_channel = ctx.in(first_blocked ? 1 : 0);
  // The per-channel operand, its channels padded to whole blocks with zeros:
  // a block's lanes are then one vector of it.
  const int64_t channel_images = per_channel.shape()[0];
  std::vector<float> padded(static_cast<size_t>(channel_images * blocks * lanes), 0.0f);
  for (int64_t n = 0; n < channel_images; ++n) {
    std::copy_n(per_channel.data<float>() + n * shape[1], shape[1], padded.begin() + n * blocks * lanes);
  }
  const float* x = full.data<float>();
  ctx.pool->parallel_for(
      images * blocks, std::max<int64_t>(1, kGrain / (pixels * lanes)), [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          const int64_t n = task / blocks, block = task % blocks;
          const float* scale = padded.data() + ((channel_images == 1 ? 0 : n) * blocks + block) * lanes;
          for (int64_t p = 0; p < pixels; ++p) {
            const int64_t at = (task * pixels + p) * lanes;
            if (first_blocked) {
              row(x + at, 1, scale, 1, out + at, lanes);
            } else {
              row(scale, 1, x + at, 1, out + at, lanes);
            }
          }
        }
      });
  return {};
}

template <BinaryFn kFn>
Status binary(KernelContext& ctx) {
  if (ctx.output_blocked(0)) return apply_blocked(ctx, kFn);
  return apply(ctx, kFn, ctx.in(0), ctx.in(1), ctx.out(0));
}

Status mod(KernelContext& ctx) {
  const bool fmod = attrs<fb::ModAttrsT>(ctx.op).fmod;
  return apply(ctx, fmod ? BinaryFn::kFmod : BinaryFn::kMod, ctx.in(0), ctx.in(1), ctx.out(0));
}

// Min and Max over 1..N inputs fold into the output: out = f(in0, in1), then
// out = f(out, in_k). A lone input is f(in0, in0), a copy.
template <BinaryFn kFn>
Status variadic(KernelContext& ctx) {
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i)) inputs.push_back(&ctx.in(i));
  }
  if (inputs.empty()) return ctx.fail("needs at least one input");
  Tensor& out = ctx.out(0);
  for (const Tensor* in : inputs) {
    if (in->dtype() != inputs[0]->dtype()) return ctx.fail("inputs must share one dtype");
  }
  MOTE_RETURN_IF_ERROR(apply(ctx, kFn, *inputs[0], *inputs[inputs.size() > 1 ? 1 : 0], out));
  for (size_t k = 2; k < inputs.size(); ++k) MOTE_RETURN_IF_ERROR(apply(ctx, kFn, out, *inputs[k], out));
  return {};
}

Status where(KernelContext& ctx) {
  const Tensor& cond = ctx.in(0);
  const Tensor& x = ctx.in(1);
  const Tensor& y = ctx.in(2);
  Tensor& out = ctx.out(0);
  const size_t size = dtype_size(x.dtype());
  const WhereRowFn row = where_row_fn(size);
  if (cond.dtype() != DType::Bool || y.dtype() != x.dtype() || out.dtype() != x.dtype() || row == nullptr) {
    return ctx.fail("expects a bool condition and X, Y and the output of one dtype");
  }
  const BroadcastPlan plan = plan_broadcast(out.shape(), {cond.shape(), x.shape(), y.shape()});
  const int64_t element = static_cast<int64_t>(size);
  const bool* pc = cond.data<bool>();
  const char* px = byte_pointer(x);
  const char* py = byte_pointer(y);
  char* pout = byte_pointer(out);
  parallel_for_each_segment(*ctx.pool, plan, kGrain, [&](const BroadcastSegment& s) {
    row(pc + s.offsets[0], plan.inner_step(0), px + s.offsets[1] * element, plan.inner_step(1),
        py + s.offsets[2] * element, plan.inner_step(2), pout + s.out_offset * element, s.length);
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(Add, mote::cpu::binary<mote::cpu::BinaryFn::kAdd>, nullptr,
                mote::cpu::binary_blocked<mote::cpu::BinaryFn::kAdd>);
MOTE_CPU_KERNEL(Sub, mote::cpu::binary<mote::cpu::BinaryFn::kSub>, nullptr,
                mote::cpu::binary_blocked<mote::cpu::BinaryFn::kSub>);
MOTE_CPU_KERNEL(Mul, mote::cpu::binary<mote::cpu::BinaryFn::kMul>, nullptr,
                mote::cpu::binary_blocked<mote::cpu::BinaryFn::kMul>);
MOTE_CPU_KERNEL(Div, mote::cpu::binary<mote::cpu::BinaryFn::kDiv>, nullptr,
                mote::cpu::binary_blocked<mote::cpu::BinaryFn::kDiv>);
MOTE_CPU_KERNEL(Pow, mote::cpu::binary<mote::cpu::BinaryFn::kPow>);
MOTE_CPU_KERNEL(Min, mote::cpu::variadic<mote::cpu::BinaryFn::kMin>);
MOTE_CPU_KERNEL(Max, mote::cpu::variadic<mote::cpu::BinaryFn::kMax>);
MOTE_CPU_KERNEL(Mod, mote::cpu::mod);
MOTE_CPU_KERNEL(PRelu, mote::cpu::binary<mote::cpu::BinaryFn::kPRelu>);
MOTE_CPU_KERNEL(And, mote::cpu::binary<mote::cpu::BinaryFn::kAnd>);
MOTE_CPU_KERNEL(Or, mote::cpu::binary<mote::cpu::BinaryFn::kOr>);
MOTE_CPU_KERNEL(Xor, mote::cpu::binary<mote::cpu::BinaryFn::kXor>);
MOTE_CPU_KERNEL(BitwiseAnd, mote::cpu::binary<mote::cpu::BinaryFn::kBitAnd>);
MOTE_CPU_KERNEL(BitwiseOr, mote::cpu::binary<mote::cpu::BinaryFn::kBitOr>);
MOTE_CPU_KERNEL(BitwiseXor, mote::cpu::binary<mote::cpu::BinaryFn::kBitXor>);
MOTE_CPU_KERNEL(Equal, mote::cpu::binary<mote::cpu::BinaryFn::kEqual>);
MOTE_CPU_KERNEL(Less, mote::cpu::binary<mote::cpu::BinaryFn::kLess>);
MOTE_CPU_KERNEL(Greater, mote::cpu::binary<mote::cpu::BinaryFn::kGreater>);
MOTE_CPU_KERNEL(LessOrEqual, mote::cpu::binary<mote::cpu::BinaryFn::kLessOrEqual>);
MOTE_CPU_KERNEL(GreaterOrEqual, mote::cpu::binary<mote::cpu::BinaryFn::kGreaterOrEqual>);
MOTE_CPU_KERNEL(Where, mote::cpu::where);
