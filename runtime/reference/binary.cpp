// Reference kernels of the binary elementwise ops, the variadic Min/Max and
// Where: every output element is visited in order, its index unravelled and
// each input's element found through broadcast strides. Float arithmetic is
// done in double and rounded once; integer arithmetic follows
// runtime/ops/integer_math.hpp.
#include <cmath>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/integer_math.hpp"
#include "runtime/reference/element_index.hpp"
#include "runtime/reference/visit_dtype.hpp"

namespace mote::reference {
namespace {

Status unsupported_dtypes(KernelContext& ctx) {
  std::string names;
  for (const Tensor* in : ctx.inputs) {
    names += std::string(names.empty() ? "" : ", ") + (in ? dtype_name(in->dtype()) : "none");
  }
  return ctx.fail("unsupported dtypes " + names);
}

// Element offset in `input` of output element `linear`, its index unravelled
// in place: an index vector allocated per element was half the time of the
// binary op tests (BinaryOps.ArithmeticCpuMatchesReference 2.2 -> 1.3 s).
int64_t input_offset(int64_t linear, const Shape& out_shape, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = out_shape.size(); d-- > 0;) {
    offset += (linear % out_shape[d]) * strides[d];
    linear /= out_shape[d];
  }
  return offset;
}

// out[i] = f(a[.], b[.]) with a, b broadcast to out.
template <class TA, class TB, class TOut, class F>
void broadcast_map(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const std::vector<int64_t> sa = broadcast_strides(a.shape(), out.shape());
  const std::vector<int64_t> sb = broadcast_strides(b.shape(), out.shape());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const TA x = a.data<TA>()[input_offset(i, out.shape(), sa)];
    const TB y = b.data<TB>()[input_offset(i, out.shape(), sb)];
    out.data<TOut>()[i] = f(x, y);
  }
}

// Add, Sub, Mul, Div, PRelu: f gets (double, double) for floats and (T, T)
// for integers.
template <class FloatFn, class IntegerFn>
Status arithmetic(KernelContext& ctx, FloatFn float_fn, IntegerFn integer_fn) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  if (a.dtype() != b.dtype()) return unsupported_dtypes(ctx);
  const bool known = visit_number_type(a.dtype(), [&](auto type) {
    using T = decltype(type);
    if constexpr (std::is_floating_point_v<T>) {
      broadcast_map<T, T, T>(a, b, ctx.out(0), [&](T x, T y) {
        return static_cast<T>(float_fn(static_cast<double>(x), static_cast<double>(y)));
      });
    } else {
      broadcast_map<T, T, T>(a, b, ctx.out(0), integer_fn);
    }
  });
  return known ? Status{} : unsupported_dtypes(ctx);
}

Status add(KernelContext& ctx) {
  return arithmetic(ctx, [](double x, double y) { return x + y; }, [](auto x, auto y) { return wrapping_add(x, y); });
}
Status sub(KernelContext& ctx) {
  return arithmetic(ctx, [](double x, double y) { return x - y; }, [](auto x, auto y) { return wrapping_sub(x, y); });
}
Status mul(KernelContext& ctx) {
  return arithmetic(ctx, [](double x, double y) { return x * y; }, [](auto x, auto y) { return wrapping_mul(x, y); });
}
Status div(KernelContext& ctx) {
  return arithmetic(ctx, [](double x, double y) { return x / y; },
                    [](auto x, auto y) { return truncating_divide(x, y); });
}
// PRelu: x < 0 ? slope * x : x.
Status prelu(KernelContext& ctx) {
  return arithmetic(ctx, [](double x, double slope) { return x < 0 ? slope * x : x; },
                    [](auto x, auto slope) { return x < 0 ? wrapping_mul(x, slope) : x; });
}

Status mod(KernelContext& ctx) {
  const bool fmod = attrs<fb::ModAttrsT>(ctx.op).fmod;
  return arithmetic(ctx, [fmod](double x, double y) { return float_mod(x, y, fmod); },
                    [fmod](auto x, auto y) { return integer_mod(x, y, fmod); });
}

// Integer Pow on i8 / u8 is not in ONNX (T is f32, f64, i32 or i64).
Status pow(KernelContext& ctx) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  bool known = false;
  visit_number_type(a.dtype(), [&](auto base) {
    known = visit_number_type(b.dtype(), [&](auto exponent) {
      using TA = decltype(base);
      using TB = decltype(exponent);
      broadcast_map<TA, TB, TA>(a, b, ctx.out(0), [](TA x, TB y) { return pow_element(x, y); });
    });
  });
  return known ? Status{} : unsupported_dtypes(ctx);
}

// Min / Max of 1..N inputs; a NaN anywhere gives NaN (numpy's
// minimum/maximum).
template <bool kMax>
Status extremum(KernelContext& ctx) {
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i)) inputs.push_back(&ctx.in(i));
  }
  Tensor& out = ctx.out(0);
  for (const Tensor* in : inputs) {
    if (in->dtype() != out.dtype()) return unsupported_dtypes(ctx);
  }
  std::vector<std::vector<int64_t>> strides;
  for (const Tensor* in : inputs) strides.push_back(broadcast_strides(in->shape(), out.shape()));
  const bool known = visit_number_type(out.dtype(), [&](auto type) {
    using T = decltype(type);
    // Whether v replaces best: a NaN best stays, a NaN v wins.
    auto replaces = [](T v, T best) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(best)) return false;
        if (std::isnan(v)) return true;
      }
      return kMax ? v > best : v < best;
    };
    for (int64_t i = 0; i < out.numel(); ++i) {
      T best = inputs[0]->data<T>()[input_offset(i, out.shape(), strides[0])];
      for (size_t k = 1; k < inputs.size(); ++k) {
        const T v = inputs[k]->data<T>()[input_offset(i, out.shape(), strides[k])];
        if (replaces(v, best)) best = v;
      }
      out.data<T>()[i] = best;
    }
  });
  return known ? Status{} : unsupported_dtypes(ctx);
}

// Comparisons write bool; Equal also compares bools.
template <class Compare>
Status compare(KernelContext& ctx, Compare cmp) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  if (a.dtype() != b.dtype()) return unsupported_dtypes(ctx);
  if (a.dtype() == DType::Bool) {
    broadcast_map<bool, bool, bool>(a, b, ctx.out(0), cmp);
    return {};
  }
  const bool known = visit_number_type(a.dtype(), [&](auto type) {
    using T = decltype(type);
    broadcast_map<T, T, bool>(a, b, ctx.out(0), cmp);
  });
  return known ? Status{} : unsupported_dtypes(ctx);
}

Status equal(KernelContext& ctx) { return compare(ctx, [](auto x, auto y) { return x == y; }); }
Status less(KernelContext& ctx) { return compare(ctx, [](auto x, auto y) { return x < y; }); }
Status greater(KernelContext& ctx) { return compare(ctx, [](auto x, auto y) { return x > y; }); }
Status less_or_equal(KernelContext& ctx) { return compare(ctx, [](auto x, auto y) { return x <= y; }); }
Status greater_or_equal(KernelContext& ctx) { return compare(ctx, [](auto x, auto y) { return x >= y; }); }

template <class F>
Status logical(KernelContext& ctx, F f) {
  if (ctx.in(0).dtype() != DType::Bool || ctx.in(1).dtype() != DType::Bool) return unsupported_dtypes(ctx);
  broadcast_map<bool, bool, bool>(ctx.in(0), ctx.in(1), ctx.out(0), f);
  return {};
}

Status logical_and(KernelContext& ctx) { return logical(ctx, [](bool x, bool y) { return x && y; }); }
Status logical_or(KernelContext& ctx) { return logical(ctx, [](bool x, bool y) { return x || y; }); }
Status logical_xor(KernelContext& ctx) { return logical(ctx, [](bool x, bool y) { return x != y; }); }

// Bitwise And, Or, Xor on the two's complement bits of integers.
template <class F>
Status bitwise(KernelContext& ctx, F f) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  if (a.dtype() != b.dtype()) return unsupported_dtypes(ctx);
  bool known = false;
  visit_number_type(a.dtype(), [&](auto type) {
    using T = decltype(type);
    if constexpr (std::is_integral_v<T>) {
      broadcast_map<T, T, T>(a, b, ctx.out(0), [&](T x, T y) { return static_cast<T>(f(x, y)); });
      known = true;
    }
  });
  return known ? Status{} : unsupported_dtypes(ctx);
}

Status bitwise_and(KernelContext& ctx) { return bitwise(ctx, [](auto x, auto y) { return x & y; }); }
Status bitwise_or(KernelContext& ctx) { return bitwise(ctx, [](auto x, auto y) { return x | y; }); }
Status bitwise_xor(KernelContext& ctx) { return bitwise(ctx, [](auto x, auto y) { return x ^ y; }); }

// Shifts of 8 or more bits give 0.
Status bit_shift(KernelContext& ctx) {
  const bool left = attrs<fb::ShiftAttrsT>(ctx.op).left;
  if (ctx.in(0).dtype() != DType::U8 || ctx.in(1).dtype() != DType::U8) return unsupported_dtypes(ctx);
  broadcast_map<uint8_t, uint8_t, uint8_t>(ctx.in(0), ctx.in(1), ctx.out(0), [left](uint8_t x, uint8_t s) {
    if (s >= 8) return uint8_t{0};
    return static_cast<uint8_t>(left ? x << s : x >> s);
  });
  return {};
}

// Where copies whole elements by size, so it serves every dtype.
Status where(KernelContext& ctx) {
  const Tensor& cond = ctx.in(0);
  const Tensor& x = ctx.in(1);
  const Tensor& y = ctx.in(2);
  Tensor& out = ctx.out(0);
  if (cond.dtype() != DType::Bool || x.dtype() != y.dtype() || out.dtype() != x.dtype()) {
    return unsupported_dtypes(ctx);
  }
  const std::vector<int64_t> sc = broadcast_strides(cond.shape(), out.shape());
  const std::vector<int64_t> sx = broadcast_strides(x.shape(), out.shape());
  const std::vector<int64_t> sy = broadcast_strides(y.shape(), out.shape());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const bool pick_x = cond.data<bool>()[input_offset(i, out.shape(), sc)];
    if (pick_x) {
      copy_element_at(x, input_offset(i, out.shape(), sx), out, i);
    } else {
      copy_element_at(y, input_offset(i, out.shape(), sy), out, i);
    }
  }
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Add, mote::reference::add);
MOTE_REF_KERNEL(Sub, mote::reference::sub);
MOTE_REF_KERNEL(Mul, mote::reference::mul);
MOTE_REF_KERNEL(Div, mote::reference::div);
MOTE_REF_KERNEL(Pow, mote::reference::pow);
MOTE_REF_KERNEL(Min, mote::reference::extremum<false>);
MOTE_REF_KERNEL(Max, mote::reference::extremum<true>);
MOTE_REF_KERNEL(Mod, mote::reference::mod);
MOTE_REF_KERNEL(BitShift, mote::reference::bit_shift);
MOTE_REF_KERNEL(PRelu, mote::reference::prelu);
MOTE_REF_KERNEL(And, mote::reference::logical_and);
MOTE_REF_KERNEL(Or, mote::reference::logical_or);
MOTE_REF_KERNEL(Xor, mote::reference::logical_xor);
MOTE_REF_KERNEL(BitwiseAnd, mote::reference::bitwise_and);
MOTE_REF_KERNEL(BitwiseOr, mote::reference::bitwise_or);
MOTE_REF_KERNEL(BitwiseXor, mote::reference::bitwise_xor);
MOTE_REF_KERNEL(Equal, mote::reference::equal);
MOTE_REF_KERNEL(Less, mote::reference::less);
MOTE_REF_KERNEL(Greater, mote::reference::greater);
MOTE_REF_KERNEL(LessOrEqual, mote::reference::less_or_equal);
MOTE_REF_KERNEL(GreaterOrEqual, mote::reference::greater_or_equal);
MOTE_REF_KERNEL(Where, mote::reference::where);
