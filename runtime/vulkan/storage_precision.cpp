#include "runtime/vulkan/storage_precision.hpp"

#include <map>
#include <utility>

#include "runtime/vulkan/kernels/cast_kinds.hpp"

namespace mote::vk {

Dispatch precision_conversion(bool to_f16, int64_t numel, const DeviceFeatures& features) {
  Dispatch d;
  d.shader = ShaderId::kCast;
  d.args = {{TensorArg::kInput, 0}, {TensorArg::kOutput, 0}};
  const uint32_t n = static_cast<uint32_t>(numel);
  d.push.resize(sizeof(n));
  std::memcpy(d.push.data(), &n, sizeof(n));
  // cast.comp gives each invocation a whole output word when it writes halves.
  d.groups = groups_1d(to_f16 ? (numel + 1) / 2 : numel, 64, features);
  d.local = {64, 1, 1};
  d.constants = {to_f16 ? kCastFloat : kCastHalf, to_f16 ? kCastHalf : kCastFloat};
  return d;
}

StoragePrecisionPlan assign_storage_precision(std::vector<ProgramTensor>& tensors, std::vector<ProgramStep>& steps,
                                              const DeviceFeatures& features) {
  StoragePrecisionPlan plan;
  enum : int8_t { kUnset = -1, kF32 = 0, kF16 = 1 };
  std::vector<int8_t> stored(tensors.size(), kUnset);
  std::map<std::pair<int, bool>, int> twin_of;  // (tensor, f16) -> twin
  // Which inputs each step binds: plan() reads others (shapes) on the host.
  auto bound_inputs = [](const ProgramStep& step) {
    std::vector<bool> bound(step.inputs.size(), false);
    for (const Dispatch& d : step.dispatches) {
      for (const TensorArg& arg : d.args) {
        if (arg.kind == TensorArg::kInput) bound[static_cast<size_t>(arg.index)] = true;
      }
    }
    return bound;
  };
  // A tensor the host uploads (a graph input, a CPU op's output) is stored
  // f32 when any GPU step reads it in f32, so an op kept f32 never reads a
  // rounded copy; its f16 readers get a converted twin.
  std::vector<bool> made_on_gpu(tensors.size(), false);
  for (const ProgramStep& step : steps) {
    for (int t : step.outputs) {
      if (t >= 0) made_on_gpu[static_cast<size_t>(t)] = true;
    }
  }
  // An input in the caller's memory (caller_memory) is the caller's f32
  // data as it is: stored f32, its f16 readers get a twin.
  std::vector<bool> upload_f32(tensors.size(), false);
  for (size_t k = 0; k < tensors.size(); ++k) upload_f32[k] = tensors[k].graph_input && tensors[k].caller_memory;
  for (const ProgramStep& step : steps) {
    if (step.fp16) continue;
    std::vector<bool> bound = bound_inputs(step);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const int t = step.inputs[i];
      if (t >= 0 && bound[i] && !made_on_gpu[static_cast<size_t>(t)]) upload_f32[static_cast<size_t>(t)] = true;
    }
  }
  std::vector<ProgramStep> out;
  out.reserve(steps.size());
  for (ProgramStep& step : steps) {
    (step.fp16 ? plan.f16_steps : plan.f32_steps) += 1;
    const int8_t want = step.fp16 ? kF16 : kF32;
    const std::vector<bool> bound = bound_inputs(step);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      int& t = step.inputs[i];
      if (t < 0 || !bound[i] || tensors[static_cast<size_t>(t)].dtype != DType::F32) continue;
      int8_t& have = stored[static_cast<size_t>(t)];
      if (have == kUnset) {  // a weight (its first reader's precision) or an upload
        const bool weight = tensors[static_cast<size_t>(t)].constant != nullptr;
        have = !weight && upload_f32[static_cast<size_t>(t)] ? static_cast<int8_t>(kF32) : want;
      }
      if (have == want) continue;
      auto it = twin_of.find({t, step.fp16});
      if (it == twin_of.end()) {
        ProgramTensor twin = tensors[static_cast<size_t>(t)];
        twin.host_produced = twin.host_read_after = twin.graph_input = false;
        twin.written_in_place = twin.read_in_place = false;
        twin.caller_memory = nullptr;
        twin.caller_bytes = 0;
        twin.f16 = step.fp16;
        const int index = static_cast<int>(tensors.size());
        tensors.push_back(twin);
        stored.push_back(want);
        if (twin.constant) {
          ++plan.weight_twins;
        } else {
          ProgramStep convert;
          convert.step = step.step;  // profiled and kept alive with its reader
          convert.segment = step.segment;
          convert.fp16 = false;
          convert.label = step.label + " (its input converted to " + (step.fp16 ? "f16" : "f32") + ")";
          convert.inputs = {t};
          convert.outputs = {index};
          convert.dispatches = {precision_conversion(step.fp16, twin.numel, features)};
          out.push_back(std::move(convert));
          ++plan.conversions;
        }
        it = twin_of.emplace(std::make_pair(t, step.fp16), index).first;
      }
      t = it->second;
    }
    for (int t : step.outputs) {
      if (t < 0 || tensors[static_cast<size_t>(t)].dtype != DType::F32) continue;
      stored[static_cast<size_t>(t)] = want;
    }
    out.push_back(std::move(step));
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    if (tensors[k].dtype == DType::F32) tensors[k].f16 = stored[k] == kF16;
  }
  steps = std::move(out);
  return plan;
}

}  // namespace mote::vk
