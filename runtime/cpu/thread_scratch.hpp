// Per-thread scratch memory for the NN kernels' column buffers. A model runs
// the same shapes again and again, so the buffer is kept between calls: a
// fresh megabyte on every call would cost page faults each time.
#pragma once

#include <cstddef>

namespace mote::cpu {

// At least `floats` floats, 64-byte aligned, owned by the calling thread and
// valid until its next call to thread_scratch(). Not zeroed. Each thread of a
// pool task gets its own buffer; a kernel that hands its buffer to other
// threads (parallel fill) must not call thread_scratch() again meanwhile.
float* thread_scratch(size_t floats);

}  // namespace mote::cpu
