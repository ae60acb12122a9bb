// The Vulkan kernel interface.
//
// A Vulkan kernel is one function, plan(), called once per prepared shape. It
// either returns kUnsupported with the reason (the op then runs on the CPU,
// and `mote-run --placement` prints the reason) or describes its work as
// dispatches of registry shaders over tensor arguments. Because the same
// function decides support and selects the shaders, placement can never
// promise a kernel that then fails to record.
//
// Tensors on the device are dense row-major like on the host; F32 tensors
// are stored as f16 when the session runs with f16 storage (fp16 == true),
// every other dtype keeps its host bytes (I64 as pairs of 32-bit words).
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/vulkan/device.hpp"
#include "runtime/vulkan/gemm_tuning.hpp"
#include "shaders/shader_registry.hpp"

namespace mote::vk {

// What a shader binding refers to.
struct TensorArg {
  enum Kind : uint8_t { kInput, kOutput, kConstant, kScratch } kind = kInput;
  int index = 0;
};

struct Dispatch {
  ShaderId shader = ShaderId::kCount;
  std::vector<TensorArg> args;      // binding i <- args[i]
  std::vector<uint8_t> push;        // push-constant bytes
  std::array<uint32_t, 3> local{64, 1, 1};
  std::vector<int32_t> constants;   // specialisation constants 3, 4, ...
  std::array<uint32_t, 3> groups{1, 1, 1};
};

// Workgroups covering a 1-D range of `count` invocations in groups of
// `local`, spread over y past the device's x limit.
std::array<uint32_t, 3> groups_1d(int64_t count, uint32_t local, const DeviceFeatures& features);

struct PlanContext {
  const fb::OpT& op;
  // Shapes and dtypes of the op's tensors; data only for inputs known at
  // prepare time (weights, folded constants), raw() == nullptr otherwise.
  std::vector<const Tensor*> inputs;
  std::vector<const Tensor*> outputs;
  const DeviceFeatures& features;
  bool fp16 = false;
  // Where GEMM tiles come from (plan_gemm_launch): the session's override
  // (SessionOptions::gpu_gemm_tile) when set, else the tuned entry for the
  // product's shape, else the device profile (features.gemm_tile).
  const GemmTileLimits* gemm_override = nullptr;
  const GemmTuning* gemm_tuning = nullptr;

  // Filled by plan():
  std::vector<Dispatch> dispatches;
  std::vector<Tensor> constants;   // host tensors uploaded once at prepare
  struct Scratch {
    DType dtype;
    int64_t numel;
  };
  std::vector<Scratch> scratch;    // device temporaries live during this op
  // Each GEMM the op launches and the tile it got (placement, tuning).
  struct GemmChoice {
    GemmShape shape;
    std::string tile;  // the tile launched (GemmTile::text, and the split-K parts)
    bool tuned = false;
  };
  std::vector<GemmChoice> gemm_choices;
  // Output 0 holds input 0's bytes unchanged (the Reshape family): the
  // program gives both one region of device memory and drops `dispatches`
  // (the copy, kept where it cannot: Program::alias_views).
  bool output_views_input = false;

  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != nullptr; }
  const Tensor& in(size_t i) const { return *inputs[i]; }
  const Tensor& out(size_t i) const { return *outputs[i]; }
  TensorArg input(int i) const { return {TensorArg::kInput, i}; }
  TensorArg output(int i) const { return {TensorArg::kOutput, i}; }
  // Input i, or where the op lacks that optional input, `placeholder`: a
  // binding must hold a buffer, so an absent one is bound to a buffer the
  // shader has anyway, and a specialisation constant says not to read it.
  TensorArg input_or(int i, TensorArg placeholder) const { return has_input(i) ? input(i) : placeholder; }
  TensorArg add_constant(Tensor t) {
    constants.push_back(std::move(t));
    return {TensorArg::kConstant, static_cast<int>(constants.size()) - 1};
  }
  TensorArg add_scratch(DType dtype, int64_t numel) {
    scratch.push_back({dtype, numel});
    return {TensorArg::kScratch, static_cast<int>(scratch.size()) - 1};
  }

  // Adds a dispatch. `push` is any trivially copyable struct matching the
  // shader's push-constant block.
  template <class Push>
  Dispatch& dispatch(ShaderId shader, std::vector<TensorArg> args, const Push& push,
                     std::array<uint32_t, 3> groups, std::array<uint32_t, 3> local = {64, 1, 1}) {
    Dispatch d;
    d.shader = shader;
    d.args = std::move(args);
    d.push.resize(sizeof(Push));
    std::memcpy(d.push.data(), &push, sizeof(Push));
    d.groups = groups;
    d.local = local;
    dispatches.push_back(std::move(d));
    return dispatches.back();
  }
  // One invocation per element of a 1-D range of `count` (workgroups of 64,
  // spread over y past the x limit; shaders index with linear_id()).
  template <class Push>
  Dispatch& dispatch_1d(ShaderId shader, std::vector<TensorArg> args, const Push& push, int64_t count) {
    return dispatch(shader, std::move(args), push, groups_1d(count, 64));
  }
  std::array<uint32_t, 3> groups_1d(int64_t count, uint32_t local) const;

  // kUnsupported naming the op, for plan() to return.
  Status unsupported(const std::string& reason) const;
  // kUnsupported unless every input and output present has one of `dtypes`.
  Status require_dtypes(std::initializer_list<DType> dtypes) const;
};

using PlanFn = Status (*)(PlanContext& ctx);

struct VulkanKernel {
  PlanFn plan = nullptr;
};

}  // namespace mote::vk

// Registers the Vulkan kernel of op `OP`, one line per op (found by
// cmake/generate_registry.py):   MOTE_VK_KERNEL(Relu, plan_unary);
#define MOTE_VK_KERNEL(OP, ...)                               \
  namespace mote::registered {                                \
  extern const ::mote::vk::VulkanKernel vk_kernel_##OP;       \
  const ::mote::vk::VulkanKernel vk_kernel_##OP{__VA_ARGS__}; \
  }
