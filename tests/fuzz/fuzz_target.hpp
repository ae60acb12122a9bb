// Every fuzz target in this folder defines LLVMFuzzerTestOneInput, the entry
// point libFuzzer calls with each input. Built with MOTE_FUZZ=ON (clang) they
// link libFuzzer; in every other build they link replay_main.cpp instead,
// which feeds them the seed corpus and the crash regressions as a CTest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <memory>

#include "mote/graph_builder.hpp"
#include "mote/tensor.hpp"
#include "mote/training.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mote::fuzz {

// A copy of `data` at the alignment of a memory-mapped file (64 bytes), as
// Model::from_buffer reads weights in place. Owned by the returned Tensor.
inline Tensor aligned_copy(const uint8_t* data, size_t size) {
  Tensor t = Tensor::zeros(DType::U8, {static_cast<int64_t>(size)});
  if (size && t.raw()) std::copy(data, data + size, t.data<uint8_t>());
  return t;
}

// The device the pipeline-cache seeds are written for (make_seeds.cpp) and
// the cache target decodes them as.
inline vk::PipelineCacheKey seed_cache_key() {
  vk::PipelineCacheKey key;
  key.vendor_id = 0x10005;  // Mesa
  key.device_id = 0;
  key.driver_version = 42;
  for (int i = 0; i < 16; ++i) key.uuid[i] = static_cast<uint8_t>(i * 7);
  key.shader_set_hash = 0x0123456789abcdefull;
  return key;
}

// The model and options of the optimizer-state target and its seeds.
inline GraphBuilder optimizer_seed_model() {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {4, 3});
  int w = b.add_constant("w", Tensor::from_vector<float>({3, 2}, {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}));
  int bias = b.add_constant("b", Tensor::from_vector<float>({2}, {0.01f, -0.01f}));
  b.mark_output(b.add_op(fb::OpType::Gemm, {x, w, bias}, fb::GemmAttrsT{})[0], "logits");
  return b;
}

inline TrainingOptions optimizer_seed_options() {
  TrainingOptions t;
  t.optimizer.kind = OptimizerKind::kAdamW;
  t.optimizer.learning_rate = 0.01f;
  t.session.threads = 1;
  return t;
}

}  // namespace mote::fuzz
