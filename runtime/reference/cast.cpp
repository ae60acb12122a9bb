// Reference kernel of Cast: convert_element (runtime/ops/cast.hpp) applied to
// every element.
#include "runtime/core/kernel.hpp"
#include "runtime/ops/cast.hpp"

namespace mote::reference {
namespace {

// Calls visit(T{}) with the C++ element type of `dtype` (HalfBits for f16);
// false for an unknown dtype.
template <class Visit>
bool visit_element_type(DType dtype, Visit visit) {
  switch (dtype) {
    case DType::F32: visit(float{}); return true;
    case DType::F16: visit(HalfBits{}); return true;
    case DType::I8: visit(int8_t{}); return true;
    case DType::U8: visit(uint8_t{}); return true;
    case DType::I32: visit(int32_t{}); return true;
    case DType::I64: visit(int64_t{}); return true;
    case DType::Bool: visit(bool{}); return true;
    case DType::F64: visit(double{}); return true;
  }
  return false;
}

Status cast(KernelContext& ctx) {
  const Tensor& in = ctx.in(0);
  Tensor& out = ctx.out(0);
  bool known = false;
  visit_element_type(in.dtype(), [&](auto from) {
    known = visit_element_type(out.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      const From* x = in.data<From>();
      To* y = out.data<To>();
      for (int64_t i = 0; i < in.numel(); ++i) y[i] = convert_element<To>(x[i]);
    });
  });
  if (!known) return ctx.fail(std::string("cannot cast ") + dtype_name(in.dtype()) + " to " + dtype_name(out.dtype()));
  return {};
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Cast, mote::reference::cast);
