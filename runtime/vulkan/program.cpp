#include "runtime/vulkan/program.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "runtime/core/half.hpp"
#include "runtime/core/memory_planner.hpp"

namespace mote::vk {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

constexpr const char* kStoredAsF16 = "it is stored as f16 on the GPU (f16 storage): it is converted on the way";

// Bytes of one buffer (the arena or a caller's memory) a dispatch touches.
struct Span {
  const Buffer* buffer = nullptr;
  uint64_t begin = 0, end = 0;
  bool overlaps(const Span& o) const { return buffer == o.buffer && begin < o.end && o.begin < end; }
};

// Tracks which bytes dispatches since the last barrier read and wrote, to
// place a barrier only before a dispatch that depends on them.
class HazardTracker {
 public:
  bool needs_barrier(const std::vector<Span>& reads, const std::vector<Span>& writes) const {
    for (const Span& r : reads) {
      for (const Span& w : written_) {
        if (r.overlaps(w)) return true;
      }
    }
    for (const Span& w : writes) {
      for (const Span& x : written_) {
        if (w.overlaps(x)) return true;
      }
      for (const Span& x : read_) {
        if (w.overlaps(x)) return true;
      }
    }
    return false;
  }
  void add(const std::vector<Span>& reads, const std::vector<Span>& writes) {
    read_.insert(read_.end(), reads.begin(), reads.end());
    written_.insert(written_.end(), writes.begin(), writes.end());
  }
  void clear() {
    read_.clear();
    written_.clear();
  }

 private:
  std::vector<Span> read_, written_;
};

void memory_barrier(VkCommandBuffer cb, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

uint64_t Program::device_bytes(DType dtype, int64_t numel, bool f16) {
  uint64_t n = static_cast<uint64_t>(std::max<int64_t>(numel, 0));
  uint64_t bytes = (f16 && dtype == DType::F32) ? n * 2 : n * dtype_size(dtype);
  return std::max<uint64_t>(align_up(bytes, 4), 4);
}

void Program::copy_to_device(const Tensor& host, uint8_t* dst, bool f16) {
  if (!f16 && host.raw() == dst) return;  // written in place (input_view)
  if (f16 && host.dtype() == DType::F32) {
    const float* src = host.data<float>();
    auto* out = reinterpret_cast<uint16_t*>(dst);
    for (int64_t i = 0; i < host.numel(); ++i) out[i] = float_to_half(src[i]);
  } else if (host.bytes()) {
    std::memcpy(dst, host.raw(), host.bytes());
  }
}

void Program::copy_to_host(const uint8_t* src, Tensor& host, bool f16) {
  if (!f16 && host.raw() == src) return;  // read in place (output_view)
  if (f16 && host.dtype() == DType::F32) {
    const auto* in = reinterpret_cast<const uint16_t*>(src);
    float* out = host.data<float>();
    for (int64_t i = 0; i < host.numel(); ++i) out[i] = half_to_float(in[i]);
  } else if (host.bytes()) {
    std::memcpy(host.raw(), src, host.bytes());
  }
}

Result<std::unique_ptr<Program>> Program::build(Device& device, const ProgramOptions& options,
                                                const std::vector<ProgramTensor>& tensors,
                                                std::vector<ProgramStep> steps) {
  std::unique_ptr<Program> p(new Program(device));
  p->profile_ = options.profile && device.features().timestamps;
  p->max_arena_bytes_ = options.max_arena_bytes;
  p->tensors_ = tensors;
  p->steps_ = std::move(steps);
  int segment_count = 0;
  for (const ProgramStep& s : p->steps_) segment_count = std::max(segment_count, s.segment + 1);
  p->segments_.resize(static_cast<size_t>(segment_count));
  for (size_t i = 0; i < p->steps_.size(); ++i) {
    p->segments_[static_cast<size_t>(p->steps_[i].segment)].steps.push_back(static_cast<int>(i));
  }
  p->stats_.segments = segment_count;
  MOTE_RETURN_IF_ERROR(p->plan_memory(tensors));
  MOTE_RETURN_IF_ERROR(p->upload_weights(tensors));

  uint32_t sets = 0, descriptors = 0;
  for (const ProgramStep& s : p->steps_) {
    for (const Dispatch& d : s.dispatches) {
      ++sets;
      descriptors += static_cast<uint32_t>(d.args.size());
    }
  }
  if (sets) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(descriptors, 1)};
    VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    ci.maxSets = sets;
    ci.poolSizeCount = 1;
    ci.pPoolSizes = &size;
    MOTE_VK_CHECK(vkCreateDescriptorPool(device.handle(), &ci, nullptr, &p->descriptor_pool_), "vkCreateDescriptorPool");
  }
  if (p->profile_) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = static_cast<uint32_t>(p->steps_.size() + p->segments_.size());
    MOTE_VK_CHECK(vkCreateQueryPool(device.handle(), &qi, nullptr, &p->query_pool_), "vkCreateQueryPool");
    uint32_t q = 0;
    for (Segment& seg : p->segments_) {
      seg.first_query = q;
      q += static_cast<uint32_t>(seg.steps.size()) + 1;
    }
  }
  {
    std::lock_guard<std::mutex> lock(device.pool_mutex());
    p->command_buffers_.resize(p->segments_.size());
    if (!p->segments_.empty()) {
      VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      ai.commandPool = device.command_pool();
      ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      ai.commandBufferCount = static_cast<uint32_t>(p->segments_.size());
      MOTE_VK_CHECK(vkAllocateCommandBuffers(device.handle(), &ai, p->command_buffers_.data()),
                    "vkAllocateCommandBuffers");
    }
    for (size_t i = 0; i < p->segments_.size(); ++i) {
      p->segments_[i].commands = p->command_buffers_[i];
      MOTE_RETURN_IF_ERROR(p->record(p->segments_[i]));
    }
  }
  return p;
}

Program::~Program() {
  VkDevice d = device_.handle();
  if (!command_buffers_.empty()) {
    std::lock_guard<std::mutex> lock(device_.pool_mutex());
    vkFreeCommandBuffers(d, device_.command_pool(), static_cast<uint32_t>(command_buffers_.size()),
                         command_buffers_.data());
  }
  if (descriptor_pool_) vkDestroyDescriptorPool(d, descriptor_pool_, nullptr);
  if (query_pool_) vkDestroyQueryPool(d, query_pool_, nullptr);
}

// Steps whose output is their input's bytes (ProgramStep::output_views_input)
// run nothing: the output takes its input's region. Not where either tensor
// has bytes of its own outside the arena's lifetimes (a weight, the
// caller's memory, a view the caller holds) or the two are stored
// differently; those keep their copy. Returns each tensor's root: itself,
// or the tensor whose region it shares.
std::vector<int> Program::alias_views(const std::vector<ProgramTensor>& tensors) {
  std::vector<int> root(tensors.size());
  for (size_t k = 0; k < root.size(); ++k) root[k] = static_cast<int>(k);
  auto own_bytes = [](const ProgramTensor& t) {
    return t.constant || t.caller_memory || t.written_in_place || t.read_in_place;
  };
  for (ProgramStep& st : steps_) {
    if (!st.output_views_input || st.inputs.empty() || st.outputs.size() != 1) continue;
    const int in = st.inputs[0], out = st.outputs[0];
    if (in < 0 || out < 0 || st.dispatches.size() != 1) continue;
    const ProgramTensor& x = tensors[static_cast<size_t>(in)];
    const ProgramTensor& y = tensors[static_cast<size_t>(out)];
    if (own_bytes(x) || own_bytes(y) || x.dtype != y.dtype || x.numel != y.numel || x.f16 != y.f16) continue;
    root[static_cast<size_t>(out)] = root[static_cast<size_t>(in)];
    st.dispatches.clear();
    ++stats_.views;
  }
  return root;
}

Status Program::plan_memory(const std::vector<ProgramTensor>& tensors) {
  const uint64_t alignment = std::max<uint64_t>(256, device_.features().storage_offset_alignment);
  const size_t n = tensors.size();
  const std::vector<int> root = alias_views(tensors);
  std::vector<int> first(n, -1), last(n, -1), produced_segment(n, -1), upload_segment(n, -1);
  std::vector<int> segment_end(segments_.size(), 0), segment_begin(segments_.size(), 0);
  for (size_t s = 0; s < segments_.size(); ++s) {
    segment_begin[s] = steps_[static_cast<size_t>(segments_[s].steps.front())].step;
    segment_end[s] = steps_[static_cast<size_t>(segments_[s].steps.back())].step;
  }
  for (const ProgramStep& st : steps_) {
    // A view's lifetime is its root's: first, last and uploads go by root.
    for (int t : st.inputs) {
      if (t < 0 || tensors[static_cast<size_t>(t)].constant) continue;
      size_t k = static_cast<size_t>(root[static_cast<size_t>(t)]);
      if (first[k] < 0) {
        // Not produced on the GPU before: the CPU made it; upload it at the
        // start of this segment.
        upload_segment[k] = st.segment;
        first[k] = segment_begin[static_cast<size_t>(st.segment)];
      }
      last[k] = std::max(last[k], st.step);
    }
    for (int t : st.outputs) {
      if (t < 0) continue;
      const size_t k = static_cast<size_t>(root[static_cast<size_t>(t)]);
      if (k == static_cast<size_t>(t)) first[k] = st.step;
      last[k] = std::max(last[k], st.step);
      produced_segment[static_cast<size_t>(t)] = st.segment;
      if (tensors[static_cast<size_t>(t)].host_read_after) {
        last[k] = std::max(last[k], segment_end[static_cast<size_t>(st.segment)]);
      }
    }
  }
  // On unified memory, inputs the caller writes in place (input_view) live
  // through the whole run: the caller wrote one before the run starts, and
  // CPU steps read it there until the end. Outputs the caller reads in place
  // (output_view) live from their step to the end, where a later segment's
  // intermediates would otherwise overwrite them.
  if (device_.features().host_visible_device_local && !steps_.empty()) {
    for (size_t k = 0; k < n; ++k) {
      if (tensors[k].f16) continue;
      const bool input = tensors[k].written_in_place && upload_segment[k] >= 0;
      if (input) first[k] = 0;
      if (input || (tensors[k].read_in_place && produced_segment[k] >= 0)) {
        last[k] = std::max(last[k], steps_.back().step);
      }
    }
  }
  tensor_region_.assign(n, Region{});
  MOTE_RETURN_IF_ERROR(import_caller_memory(tensors, upload_segment, produced_segment));
  std::vector<LifetimeRequest> requests;
  std::vector<int> request_tensor;
  for (size_t k = 0; k < n; ++k) {
    if (first[k] < 0 || tensor_region_[k].buffer) continue;  // unused, or in the caller's memory
    requests.push_back({device_bytes(tensors[k].dtype, tensors[k].numel, tensors[k].f16), first[k], last[k]});
    request_tensor.push_back(static_cast<int>(k));
  }
  // Scratch: (step index into steps_, scratch index) per request past the tensors.
  std::vector<std::pair<size_t, size_t>> scratch_of;
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (size_t j = 0; j < steps_[i].scratch.size(); ++j) {
      const PlanContext::Scratch& scratch = steps_[i].scratch[j];
      requests.push_back(
          {device_bytes(scratch.dtype, scratch.numel, steps_[i].fp16), steps_[i].step, steps_[i].step});
      scratch_of.push_back({i, j});
    }
  }
  MemoryPlan mp = ::mote::plan_memory(requests, alignment);
  stats_.arena_bytes = mp.arena_bytes;
  if (max_arena_bytes_ && mp.arena_bytes > max_arena_bytes_) {
    return Status(StatusCode::kOutOfMemory, "the device arena needs " + std::to_string(mp.arena_bytes) +
                                                " bytes, over SessionOptions::max_arena_bytes = " +
                                                std::to_string(max_arena_bytes_));
  }
  MOTE_ASSIGN_OR_RETURN(Buffer arena, Buffer::create(device_, std::max<uint64_t>(mp.arena_bytes, 4),
                                                     MemoryKind::kDevice, "the intermediate tensors"));
  arena_ = std::make_shared<Buffer>(std::move(arena));
  for (size_t r = 0; r < request_tensor.size(); ++r) {
    tensor_region_[static_cast<size_t>(request_tensor[r])] = {arena_.get(), mp.offsets[r], requests[r].bytes};
  }
  for (size_t k = 0; k < n; ++k) {
    if (root[k] != static_cast<int>(k)) tensor_region_[k] = tensor_region_[static_cast<size_t>(root[k])];
  }
  scratch_region_.assign(steps_.size(), {});
  for (size_t i = 0; i < steps_.size(); ++i) scratch_region_[i].resize(steps_[i].scratch.size());
  for (size_t r = 0; r < scratch_of.size(); ++r) {
    size_t q = request_tensor.size() + r;
    scratch_region_[scratch_of[r].first][scratch_of[r].second] = {arena_.get(), mp.offsets[q], requests[q].bytes};
  }

  // Transfers and their staging offsets (staging is reused by every segment:
  // segments run one after another). Tensors the CPU addresses directly
  // (the mapped arena, the caller's memory) need none.
  uint64_t staging_peak = 0;
  std::vector<uint64_t> staging_used(segments_.size(), 0);
  for (size_t k = 0; k < n; ++k) {
    if (upload_segment[k] >= 0) {
      if (!tensors[k].host_produced) {
        return internal_error("GPU step reads tensor " + std::to_string(k) + " that nothing produced");
      }
      uint64_t& used = staging_used[static_cast<size_t>(upload_segment[k])];
      segments_[static_cast<size_t>(upload_segment[k])].uploads.push_back({static_cast<int>(k), used});
      if (!host_address(static_cast<int>(k)))
        used += align_up(device_bytes(tensors[k].dtype, tensors[k].numel, tensors[k].f16), 16);
      ++stats_.uploads;
    }
    if (produced_segment[k] >= 0 && tensors[k].host_read_after) {
      uint64_t& used = staging_used[static_cast<size_t>(produced_segment[k])];
      segments_[static_cast<size_t>(produced_segment[k])].downloads.push_back({static_cast<int>(k), used});
      if (!host_address(static_cast<int>(k)))
        used += align_up(device_bytes(tensors[k].dtype, tensors[k].numel, tensors[k].f16), 16);
      ++stats_.downloads;
    }
  }
  for (uint64_t u : staging_used) staging_peak = std::max(staging_peak, u);
  if (staging_peak) {
    MOTE_ASSIGN_OR_RETURN(staging_, Buffer::create(device_, staging_peak, MemoryKind::kStaging, "staging"));
    stats_.staging_bytes = staging_.size();
  }
  return {};
}

// Graph inputs and outputs in the caller's memory get a buffer of their own
// over it and no arena bytes. One the program cannot take (f16 storage, no
// GPU op reads or makes it) stays in the arena, copied as any other; the
// session checks imported() and says why.
Status Program::import_caller_memory(const std::vector<ProgramTensor>& tensors,
                                     const std::vector<int>& upload_segment,
                                     const std::vector<int>& produced_segment) {
  for (size_t k = 0; k < tensors.size(); ++k) {
    const ProgramTensor& t = tensors[k];
    if (!t.caller_memory || t.f16 || (upload_segment[k] < 0 && produced_segment[k] < 0)) continue;
    const uint64_t bytes = device_bytes(t.dtype, t.numel, false);
    if (t.caller_bytes < bytes) {
      return invalid_argument("the caller's memory holds " + std::to_string(t.caller_bytes) +
                              " bytes; the tensor needs " + std::to_string(bytes));
    }
    MOTE_ASSIGN_OR_RETURN(Buffer buffer, Buffer::import_host(device_, t.caller_memory, t.caller_bytes,
                                                             t.graph_input ? "a graph input" : "a graph output"));
    imported_.push_back(std::make_unique<Buffer>(std::move(buffer)));
    imported_tensors_.push_back(static_cast<int>(k));
    tensor_region_[k] = {imported_.back().get(), 0, bytes, /*caller_memory=*/true};
  }
  return {};
}

Status Program::upload_weights(const std::vector<ProgramTensor>& tensors) {
  const uint64_t alignment = std::max<uint64_t>(256, device_.features().storage_offset_alignment);
  // Layout: every graph constant a GPU step reads, then every kernel constant.
  uint64_t total = 0;
  std::map<int, uint64_t> constant_offset;
  // Only constants a dispatch binds: others (Reshape's shape, Slice's
  // starts) are read by plan() on the host and never needed on the device.
  for (const ProgramStep& st : steps_) {
    for (const Dispatch& d : st.dispatches) {
     for (const TensorArg& arg : d.args) {
      if (arg.kind != TensorArg::kInput) continue;
      int t = st.inputs[static_cast<size_t>(arg.index)];
      if (t < 0 || !tensors[static_cast<size_t>(t)].constant || constant_offset.count(t)) continue;
      constant_offset[t] = total;
      const ProgramTensor& pt = tensors[static_cast<size_t>(t)];
      total += align_up(device_bytes(pt.dtype, pt.numel, pt.f16), alignment);
     }
    }
  }
  std::vector<std::vector<uint64_t>> kernel_offset(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (const Tensor& c : steps_[i].constants) {
      kernel_offset[i].push_back(total);
      total += align_up(device_bytes(c.dtype(), c.numel(), steps_[i].fp16), alignment);
    }
  }
  stats_.weight_bytes = total;
  if (!total) return {};
  MOTE_ASSIGN_OR_RETURN(weights_, Buffer::create(device_, total, MemoryKind::kDevice, "the weights"));
  Buffer upload;
  uint8_t* dst = weights_.mapped();
  if (!dst) {
    MOTE_ASSIGN_OR_RETURN(upload, Buffer::create(device_, total, MemoryKind::kStaging, "weight upload"));
    dst = upload.mapped();
  }
  for (auto& [t, offset] : constant_offset) {
    const ProgramTensor& pt = tensors[static_cast<size_t>(t)];
    Tensor view = Tensor::borrow(pt.dtype, Shape{pt.numel}, pt.constant);
    copy_to_device(view, dst + offset, pt.f16);
    tensor_region_[static_cast<size_t>(t)] = {&weights_, offset, device_bytes(pt.dtype, pt.numel, pt.f16)};
  }
  constant_region_.assign(steps_.size(), {});
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (size_t j = 0; j < steps_[i].constants.size(); ++j) {
      const Tensor& c = steps_[i].constants[j];
      copy_to_device(c, dst + kernel_offset[i][j], steps_[i].fp16);
      constant_region_[i].push_back(
          {&weights_, kernel_offset[i][j], device_bytes(c.dtype(), c.numel(), steps_[i].fp16)});
    }
  }
  if (!upload.handle()) return {};
  VkCommandBuffer cb;
  {
    std::lock_guard<std::mutex> lock(device_.pool_mutex());
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = device_.command_pool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    MOTE_VK_CHECK(vkAllocateCommandBuffers(device_.handle(), &ai, &cb), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cb, &bi);
    VkBufferCopy region{0, 0, total};
    vkCmdCopyBuffer(cb, upload.handle(), weights_.handle(), 1, &region);
    memory_barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    vkEndCommandBuffer(cb);
  }
  Status st = device_.submit_and_wait(&cb, 1);
  std::lock_guard<std::mutex> lock(device_.pool_mutex());
  vkFreeCommandBuffers(device_.handle(), device_.command_pool(), 1, &cb);
  return st;
}

Program::Region Program::region_of(const ProgramStep& step, const TensorArg& arg) const {
  size_t i = static_cast<size_t>(&step - steps_.data());
  switch (arg.kind) {
    case TensorArg::kInput: return tensor_region_[static_cast<size_t>(step.inputs[static_cast<size_t>(arg.index)])];
    case TensorArg::kOutput: return tensor_region_[static_cast<size_t>(step.outputs[static_cast<size_t>(arg.index)])];
    case TensorArg::kConstant: return constant_region_[i][static_cast<size_t>(arg.index)];
    case TensorArg::kScratch: return scratch_region_[i][static_cast<size_t>(arg.index)];
  }
  return {};
}

Status Program::record(Segment& seg) {
  VkCommandBuffer cb = seg.commands;
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  MOTE_VK_CHECK(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
  if (query_pool_) {
    vkCmdResetQueryPool(cb, query_pool_, seg.first_query, static_cast<uint32_t>(seg.steps.size()) + 1);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool_, seg.first_query);
  }
  // Host writes before the submission are visible to it without a barrier;
  // staged uploads need the copy and one.
  const auto staged = [this](const Transfer& t) { return !host_address(t.tensor); };
  if (std::any_of(seg.uploads.begin(), seg.uploads.end(), staged)) {
    for (const Transfer& t : seg.uploads) {
      if (!staged(t)) continue;
      const Region& r = tensor_region_[static_cast<size_t>(t.tensor)];
      VkBufferCopy copy{t.staging_offset, r.offset, r.bytes};
      vkCmdCopyBuffer(cb, staging_.handle(), r.buffer->handle(), 1, &copy);
    }
    memory_barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    ++stats_.barriers;
  }
  HazardTracker hazards;
  uint32_t query = seg.first_query + 1;
  for (int step_index : seg.steps) {
    const ProgramStep& step = steps_[static_cast<size_t>(step_index)];
    for (const Dispatch& d : step.dispatches) {
      PipelineKey key = pipeline_key(d.shader, step.fp16, step.f16_math, d.local, d.constants);
      auto pipeline = device_.pipelines().get(key);
      if (!pipeline.ok()) return pipeline.status().with_context(step.label);
      const Pipeline& p = *pipeline.value();
      if (d.args.size() != p.bindings || d.push.size() > p.push_bytes) {
        return internal_error(step.label + ": dispatch of '" + shader_info(d.shader).name + "' has " +
                              std::to_string(d.args.size()) + " bindings and " + std::to_string(d.push.size()) +
                              " push bytes; the shader declares " + std::to_string(p.bindings) + " and " +
                              std::to_string(p.push_bytes));
      }
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = descriptor_pool_;
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &p.set_layout;
      VkDescriptorSet set;
      MOTE_VK_CHECK(vkAllocateDescriptorSets(device_.handle(), &ai, &set), "vkAllocateDescriptorSets");
      std::vector<VkDescriptorBufferInfo> infos(d.args.size());
      std::vector<VkWriteDescriptorSet> writes(d.args.size());
      std::vector<Span> reads, written;
      for (size_t b = 0; b < d.args.size(); ++b) {
        Region r = region_of(step, d.args[b]);
        if (!r.buffer) return internal_error(step.label + ": binding " + std::to_string(b) + " has no device memory");
        infos[b] = {r.buffer->handle(), r.offset, r.bytes};
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstSet = set;
        writes[b].dstBinding = static_cast<uint32_t>(b);
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
        if (r.buffer != &weights_) {  // the arena or the caller's memory: written by some dispatch
          Span range{r.buffer, r.offset, r.offset + r.bytes};
          reads.push_back(range);
          TensorArg::Kind kind = d.args[b].kind;
          if (kind == TensorArg::kOutput || kind == TensorArg::kScratch) written.push_back(range);
        }
      }
      vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
      if (hazards.needs_barrier(reads, written)) {
        memory_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        ++stats_.barriers;
        hazards.clear();
      }
      hazards.add(reads, written);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
      if (!d.push.empty()) {
        vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size()),
                           d.push.data());
      }
      vkCmdDispatch(cb, d.groups[0], d.groups[1], d.groups[2]);
      ++stats_.dispatches;
    }
    if (query_pool_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, query++);
  }
  if (!seg.downloads.empty()) {
    // Staged downloads copy to staging first; then one barrier makes the
    // shaders' and the copies' writes visible to the host.
    VkPipelineStageFlags src_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    VkAccessFlags src_access = VK_ACCESS_SHADER_WRITE_BIT;
    if (std::any_of(seg.downloads.begin(), seg.downloads.end(), staged)) {
      memory_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      ++stats_.barriers;
      for (const Transfer& t : seg.downloads) {
        if (!staged(t)) continue;
        const Region& r = tensor_region_[static_cast<size_t>(t.tensor)];
        VkBufferCopy copy{r.offset, t.staging_offset, r.bytes};
        vkCmdCopyBuffer(cb, r.buffer->handle(), staging_.handle(), 1, &copy);
      }
      src_stage |= VK_PIPELINE_STAGE_TRANSFER_BIT;
      src_access |= VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    memory_barrier(cb, src_stage, src_access, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    ++stats_.barriers;
  }
  MOTE_VK_CHECK(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  return {};
}

bool Program::transferred(int tensor, std::vector<Transfer> Segment::*transfers) const {
  for (const Segment& seg : segments_) {
    for (const Transfer& t : seg.*transfers) {
      if (t.tensor == tensor) return true;
    }
  }
  return false;
}

std::string Program::mapped_view_refusal(int tensor) const {
  if (!arena_ || !arena_->mapped()) {
    return "the GPU's memory is not mapped for the CPU here (a discrete GPU): tensors go through staging";
  }
  if (tensors_[static_cast<size_t>(tensor)].f16) return kStoredAsF16;
  return {};
}

std::string Program::gpu_side_refusal(int tensor, bool input) const {
  if (input) {
    const bool read = tensors_[static_cast<size_t>(tensor)].graph_input && transferred(tensor, &Segment::uploads);
    return read ? std::string() : "no GPU op reads it";
  }
  return transferred(tensor, &Segment::downloads) ? std::string() : "no GPU op makes it";
}

std::string Program::input_view_refusal(int tensor) const {
  if (std::string why = mapped_view_refusal(tensor); !why.empty()) return why;
  return gpu_side_refusal(tensor, true);
}

std::string Program::output_view_refusal(int tensor) const {
  if (std::string why = mapped_view_refusal(tensor); !why.empty()) return why;
  return gpu_side_refusal(tensor, false);
}

Result<Tensor> Program::input_view(int tensor, const Shape& shape) const {
  if (std::string why = input_view_refusal(tensor); !why.empty()) return unsupported(why);
  const ProgramTensor& t = tensors_[static_cast<size_t>(tensor)];
  if (!t.written_in_place) return internal_error("input_view of an input the program was not built to keep");
  const Region& r = tensor_region_[static_cast<size_t>(tensor)];
  return Tensor::view(t.dtype, shape, arena_->mapped() + r.offset, arena_);
}

Result<Tensor> Program::output_view(int tensor, const Shape& shape) const {
  if (std::string why = output_view_refusal(tensor); !why.empty()) return unsupported(why);
  const ProgramTensor& t = tensors_[static_cast<size_t>(tensor)];
  if (!t.read_in_place) return internal_error("output_view of an output the program was not built to keep");
  const Region& r = tensor_region_[static_cast<size_t>(tensor)];
  return Tensor::view(t.dtype, shape, arena_->mapped() + r.offset, arena_);
}

bool Program::written_by_runs(const void* p, bool lost_with_device) const {
  if (!p) return false;
  const auto* byte = static_cast<const uint8_t*>(p);
  const auto inside = [byte](const Buffer& b) {
    return b.mapped() && byte >= b.mapped() && byte < b.mapped() + b.size();
  };
  if (arena_ && inside(*arena_)) return true;
  for (size_t i = 0; i < imported_.size(); ++i) {
    if (lost_with_device && tensors_[static_cast<size_t>(imported_tensors_[i])].graph_input) continue;
    if (inside(*imported_[i])) return true;
  }
  return false;
}

const void* Program::input_address(int tensor) const {
  if (static_cast<size_t>(tensor) >= tensor_region_.size()) return nullptr;
  if (imported(tensor)) return host_address(tensor);
  if (!tensors_[static_cast<size_t>(tensor)].written_in_place || !input_view_refusal(tensor).empty()) return nullptr;
  return arena_->mapped() + tensor_region_[static_cast<size_t>(tensor)].offset;
}

std::string Program::import_refusal(int tensor, bool input) const {
  if (!device_.features().host_import_alignment) {
    return "the Vulkan device cannot read or write the caller's memory (no VK_EXT_external_memory_host)";
  }
  // An input in the caller's memory is stored f32 whatever its readers
  // (assign_storage_precision); an f16 output is converted on the way.
  if (!input && tensors_[static_cast<size_t>(tensor)].f16) return kStoredAsF16;
  return gpu_side_refusal(tensor, input);
}

bool Program::imported(int tensor) const { return tensor_region_[static_cast<size_t>(tensor)].caller_memory; }

uint8_t* Program::host_address(int tensor) const {
  const Region& r = tensor_region_[static_cast<size_t>(tensor)];
  return r.buffer && r.buffer->mapped() ? r.buffer->mapped() + r.offset : nullptr;
}

Status Program::run_segment(int segment, const std::function<Tensor&(int)>& host) {
  Segment& seg = segments_[static_cast<size_t>(segment)];
  const auto address = [this](const Transfer& t) {
    uint8_t* direct = host_address(t.tensor);
    return direct ? direct : staging_.mapped() + t.staging_offset;
  };
  for (const Transfer& t : seg.uploads) {
    copy_to_device(host(t.tensor), address(t), tensors_[static_cast<size_t>(t.tensor)].f16);
  }
  MOTE_RETURN_IF_ERROR(device_.submit_and_wait(&seg.commands, 1));
  for (const Transfer& t : seg.downloads) {
    copy_to_host(address(t), host(t.tensor), tensors_[static_cast<size_t>(t.tensor)].f16);
  }
  if (query_pool_) {
    if (segment == 0) step_times_.clear();
    std::vector<uint64_t> ticks(seg.steps.size() + 1);
    VkResult r = vkGetQueryPoolResults(device_.handle(), query_pool_, seg.first_query,
                                       static_cast<uint32_t>(ticks.size()), ticks.size() * 8, ticks.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS) {
      double ns = device_.features().timestamp_period_ns;
      for (size_t i = 0; i < seg.steps.size(); ++i) {
        double ms = static_cast<double>(ticks[i + 1] - ticks[i]) * ns * 1e-6;
        int step = steps_[static_cast<size_t>(seg.steps[i])].step;
        // A precision conversion carries its consumer's step: one entry for both.
        if (!step_times_.empty() && step_times_.back().first == step) {
          step_times_.back().second += ms;
        } else {
          step_times_.push_back({step, ms});
        }
      }
    }
  }
  return {};
}

}  // namespace mote::vk
