// Flush-to-zero for the CPU kernels. Subnormal floats (below 1.2e-38) cost
// a microcode assist of about a hundred cycles per operation on x86 cores:
// EfficientNet-B0 on a standard-normal input, whose SiLU outputs underflow,
// took 51 ms per run against 16 ms on inputs in [0, 1) (measured with Mote's
// CPU backend before this mode). Session runs therefore treat subnormal
// inputs and results as zero (x86 MXCSR FTZ and DAZ; arm64 FPCR.FZ), as
// ncnn does by default; the reference backend keeps IEEE behaviour. The
// same scope rounds to nearest whatever mode the application set: the int8
// kernels' requantisation rounds by a float addition (qgemm.cpp). The
// thread pool runs every task under its caller's mode.
#pragma once

#include <cstdint>

namespace mote::cpu {

// The calling thread's floating-point control register (0 where unknown).
uint64_t fp_control();
void set_fp_control(uint64_t value);

// Sets flush-to-zero and round-to-nearest on the calling thread for its
// lifetime; restores the previous mode after.
class FlushDenormalsScope {
 public:
  FlushDenormalsScope();
  ~FlushDenormalsScope();
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace mote::cpu
