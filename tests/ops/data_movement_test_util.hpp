// Helpers shared by the tests of the shape and data-movement ops (reshape,
// transpose, concat_split, slice_gather, expand_tile, pad, resize, shape,
// depth_space).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "tests/support/op_test_util.hpp"

namespace mote::test {

// A 1-D i64 tensor: the form of the shape, axes, pads and starts inputs.
inline Tensor i64s(const std::vector<int64_t>& values) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values);
}

// A 1-D i32 tensor, the other integer form those inputs accept.
inline Tensor i32s(const std::vector<int32_t>& values) {
  return Tensor::from_vector<int32_t>({static_cast<int64_t>(values.size())}, values);
}

// Random values that tell elements apart in every dtype (random_tensor's
// integers fall in [-1, 1) and its f16 are zeros), so a misplaced element
// shows. f16 gets random finite bit patterns.
inline Tensor distinct_tensor(DType dtype, Shape shape, uint32_t seed) {
  if (dtype == DType::F32 || dtype == DType::F64) return random_tensor(dtype, std::move(shape), seed);
  if (dtype == DType::Bool) return random_tensor(dtype, std::move(shape), seed);
  std::mt19937 rng(seed);
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint32_t r = rng();
    switch (dtype) {
      case DType::F16: t.data<uint16_t>()[i] = static_cast<uint16_t>(r & 0xfbffu); break;  // exponent < 31: finite
      case DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(r); break;
      case DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(r); break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(r); break;
      case DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(r) * 1000003 - 7; break;
      default: break;
    }
  }
  return t;
}

// The dtypes copy kernels must move: each element size, plus bool.
inline const std::vector<DType>& copy_dtypes() {
  static const std::vector<DType> dtypes = {DType::F32, DType::I64, DType::F16, DType::U8, DType::Bool, DType::I32};
  return dtypes;
}

// Data movement is exact: optimised and reference outputs must be equal.
inline void expect_cpu_matches_reference_exactly(const fb::OpT& op, const Inputs& inputs) {
  expect_cpu_matches_reference(op, inputs, 0, 0);
}

// Expects both implementations to reject the op with a message containing
// `fragment` (and naming the op), and never to crash.
inline void expect_rejected(const fb::OpT& op, const Inputs& inputs, const std::string& fragment) {
  for (Impl impl : {Impl::kReference, Impl::kCpu}) {
    auto result = run_op(op, inputs, impl);
    ASSERT_FALSE(result.ok()) << impl_name(impl) << ": expected an error containing '" << fragment << "'";
    EXPECT_NE(result.status().message().find(fragment), std::string::npos) << result.status().to_string();
    EXPECT_NE(result.status().message().find(op_type_name(op.type)), std::string::npos)
        << result.status().to_string();
  }
}

// The reference's outputs, which must succeed.
inline std::vector<Tensor> run_reference(const fb::OpT& op, const Inputs& inputs) {
  auto result = run_op(op, inputs, Impl::kReference);
  EXPECT_TRUE(result.ok()) << result.status().to_string();
  return result.ok() ? std::move(result).value() : std::vector<Tensor>{};
}

}  // namespace mote::test
