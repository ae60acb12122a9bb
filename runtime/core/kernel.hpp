// The CPU kernel interface, shared by the optimised kernels (runtime/cpu) and
// the plain reference kernels (runtime/reference) that tests compare against.
//
// A kernel receives its inputs with their shapes and data, and outputs whose
// shapes the op's shape function already decided and whose memory the session
// already allocated. Kernels never allocate outputs or reshape them.
#pragma once

#include <memory>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"
#include "runtime/core/layout.hpp"

namespace mote {

class ThreadPool;

// State a kernel builds once per prepared shape (packed weights, tables).
struct KernelState {
  virtual ~KernelState() = default;
};

struct KernelContext {
  const fb::OpT& op;
  // nullptr for an omitted optional input.
  std::vector<const Tensor*> inputs;
  std::vector<Tensor*> outputs;
  // Never null; may hold a single thread.
  ThreadPool* pool = nullptr;
  // What prepare() returned, or nullptr.
  KernelState* state = nullptr;
  // Tensors in the channel-blocked layout (runtime/core/layout.hpp): bit i
  // for input or output i. Only set where the kernel's `blocked` said it
  // takes them.
  uint64_t blocked_inputs = 0;
  uint64_t blocked_outputs = 0;
  // The channel block the plan sized blocked tensors for (channel_block() at
  // plan time); a kernel given blocks checks it against its own lanes.
  int64_t channel_block = 0;

  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != nullptr; }
  bool input_blocked(size_t i) const { return i < 64 && (blocked_inputs >> i & 1) != 0; }
  bool output_blocked(size_t i) const { return i < 64 && (blocked_outputs >> i & 1) != 0; }
  const Tensor& in(size_t i) const { return *inputs[i]; }
  Tensor& out(size_t i) const { return *outputs[i]; }
  // An error naming this op: "Conv 'conv1': ..." (the session adds the index).
  Status fail(const std::string& message) const;
};

using KernelRunFn = Status (*)(KernelContext& ctx);
// Called once per prepared shape, before the first run: input and output
// shapes are final; inputs whose values are known (weights, folded constants)
// hold data, every other input has raw() == nullptr. A kernel that pre-packs
// weights checks raw() and, when it is null, works from the data at run time.
// May leave `state` null.
using KernelPrepareFn = Status (*)(KernelContext& ctx, std::unique_ptr<KernelState>& state);

// Which tensors of this op the kernel takes in the channel-blocked layout
// (layout.hpp). Called at plan time with a context like prepare()'s (shapes
// final, constants with data), before prepare().
using KernelBlockedFn = BlockedSupport (*)(const KernelContext& ctx);

struct CpuKernel {
  KernelRunFn run = nullptr;
  KernelPrepareFn prepare = nullptr;
  KernelBlockedFn blocked = nullptr;  // nullptr: planar tensors only
};

}  // namespace mote

// Registers an optimised CPU kernel (runtime/cpu) or a reference kernel
// (runtime/reference) for op `OP`. One line per op, found by
// cmake/generate_registry.py:
//   MOTE_CPU_KERNEL(Relu, relu_run);
//   MOTE_CPU_KERNEL(Conv, conv_run, conv_prepare, conv_blocked);
//   MOTE_REF_KERNEL(Relu, relu_reference);
#define MOTE_CPU_KERNEL(OP, ...)                               \
  namespace mote::registered {                                 \
  extern const ::mote::CpuKernel cpu_kernel_##OP;              \
  const ::mote::CpuKernel cpu_kernel_##OP{__VA_ARGS__};        \
  }
#define MOTE_REF_KERNEL(OP, ...)                               \
  namespace mote::registered {                                 \
  extern const ::mote::CpuKernel ref_kernel_##OP;              \
  const ::mote::CpuKernel ref_kernel_##OP{__VA_ARGS__};        \
  }
