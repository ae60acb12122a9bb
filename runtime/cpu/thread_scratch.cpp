#include "runtime/cpu/thread_scratch.hpp"

#include <algorithm>
#include <new>

namespace mote::cpu {
namespace {

constexpr std::align_val_t kAlignment{64};

struct ScratchBuffer {
  float* data = nullptr;
  size_t size = 0;
  ~ScratchBuffer() { release(); }
  void release() {
    if (data) ::operator delete(data, kAlignment);
    data = nullptr;
    size = 0;
  }
};

}  // namespace

float* thread_scratch(size_t floats) {
  thread_local ScratchBuffer buffer;
  if (floats > buffer.size) {
    buffer.release();
    buffer.data = static_cast<float*>(::operator new(std::max<size_t>(floats, 16) * sizeof(float), kAlignment));
    buffer.size = floats;
  }
  return buffer.data;
}

}  // namespace mote::cpu
