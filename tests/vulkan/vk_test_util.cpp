#include "tests/vulkan/vk_test_util.hpp"

#include "runtime/core/half.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/vulkan/device.hpp"

namespace mote::test {

std::string vulkan_unavailable_reason() {
  auto device = vk::Device::get();
  return device.ok() ? std::string() : device.status().message();
}

bool device_has_fp16_storage() {
  auto device = vk::Device::get();
  return device.ok() && device.value()->features().fp16_storage;
}

bool device_has_shader_float16() {
  auto device = vk::Device::get();
  return device.ok() && device.value()->features().shader_float16;
}

bool device_runs_int8_shaders() {
  auto device = vk::Device::get();
  return device.ok() && device.value()->features().int8_shaders;
}

bool device_has_half_conversions() {
  auto device = vk::Device::get();
  return device.ok() && device.value()->features().half_conversions;
}

Tensor round_to_f16(const Tensor& t) {
  if (t.dtype() != DType::F32) return t;
  Tensor r = t.clone();
  for (int64_t i = 0; i < r.numel(); ++i) r.data<float>()[i] = half_to_float(float_to_half(r.data<float>()[i]));
  return r;
}

Result<OneOpModel> one_op_model(const fb::OpT& op, const Inputs& inputs, uint32_t constant_mask) {
  const OpDef* def = find_op_def(op.type);
  if (!def) return unsupported("no op definition");
  if (constant_mask == kValueInputs) constant_mask = def->value_inputs;
  // The reference fixes the number of outputs the model declares.
  MOTE_ASSIGN_OR_RETURN(std::vector<Tensor> expected, run_op(op, inputs, Impl::kReference));
  GraphBuilder b;
  std::vector<int> ins;
  OneOpModel built;
  std::vector<Tensor>& feeds = built.feeds;
  // Names built by append: GCC 12 misreports "c" + std::to_string(i) as an
  // overflowing memcpy (-Wstringop-overflow, GCC bug 105651).
  auto name = [](char prefix, size_t i) { return std::string(1, prefix).append(std::to_string(i)); };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      ins.push_back(-1);
    } else if (constant_mask >> i & 1u) {
      ins.push_back(b.add_constant(name('c', i), *inputs[i]));
    } else {
      ins.push_back(b.add_input(name('x', i), inputs[i]->dtype(), inputs[i]->shape()));
      feeds.push_back(*inputs[i]);
    }
  }
  std::vector<int> outs = b.add_op(op.type, ins, static_cast<int>(expected.size()));
  fb::OpT& node = b.last_op();
  fb::OpT copy = op;
  node.name = copy.name;
  node.nn = std::move(copy.nn);
  node.tensor = std::move(copy.tensor);
  node.math = std::move(copy.math);
  node.fused = std::move(copy.fused);
  for (size_t i = 0; i < outs.size(); ++i) b.mark_output(outs[i], name('y', i));
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, b.serialize());
  auto storage = std::make_shared<Tensor>(Tensor::zeros(DType::U8, {static_cast<int64_t>(bytes.size())}));
  std::copy(bytes.begin(), bytes.end(), storage->data<uint8_t>());
  built.bytes = storage;
  MOTE_ASSIGN_OR_RETURN(built.model, Model::from_buffer(storage->raw(), storage->bytes(), "op.mote"));
  return built;
}

Result<VulkanRun> run_op_vulkan(const fb::OpT& op, const Inputs& inputs, GpuPrecision precision,
                                uint32_t constant_mask, SessionOptions options) {
  MOTE_ASSIGN_OR_RETURN(OneOpModel built, one_op_model(op, inputs, constant_mask));
  options.backend = Backend::kVulkan;
  options.gpu_precision = precision;
  options.min_gpu_island_elements = 0;
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(built.model, options));
  VulkanRun run;
  MOTE_ASSIGN_OR_RETURN(run.outputs, session->run(built.feeds));
  run.placement = session->placement();
  run.stats = session->plan_stats();
  return run;
}

void expect_vulkan_matches_reference(const fb::OpT& op, const Inputs& inputs, Tolerance tol, uint32_t constant_mask) {
  std::string where = std::string(op_type_name(op.type));
  for (GpuPrecision precision : {GpuPrecision::kF32, GpuPrecision::kF16Storage}) {
    bool f16 = precision == GpuPrecision::kF16Storage;
    if (f16 && !device_has_fp16_storage()) continue;
    std::string what = where + (f16 ? " (f16 storage)" : " (f32)");
    Inputs seen = inputs;
    if (f16) {
      for (auto& in : seen) {
        if (in) in = round_to_f16(*in);
      }
    }
    auto expected = run_op(op, seen, Impl::kReference);
    ASSERT_TRUE(expected.ok()) << what << ": reference failed: " << expected.status().to_string();
    auto actual = run_op_vulkan(op, inputs, precision, constant_mask);
    ASSERT_TRUE(actual.ok()) << what << ": " << actual.status().to_string();
    ASSERT_FALSE(actual->placement.empty());
    ASSERT_EQ(actual->placement[0].device, "vulkan") << what << " ran on " << actual->placement[0].device << ": "
                                                     << actual->placement[0].reason;
    ASSERT_EQ(actual->outputs.size(), expected->size());
    for (size_t i = 0; i < expected->size(); ++i) {
      expect_tensors_near(actual->outputs[i], (*expected)[i], f16 ? tol.rtol16 : tol.rtol, f16 ? tol.atol16 : tol.atol,
                          what + " output " + std::to_string(i));
    }
  }
}

}  // namespace mote::test
