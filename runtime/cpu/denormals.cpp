#include "runtime/cpu/denormals.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace mote::cpu {
namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr uint64_t kFlushBits = 0x8000 | 0x0040;  // MXCSR FTZ | DAZ
constexpr uint64_t kRoundingBits = 0x6000;        // MXCSR RC (0: to nearest)
#elif defined(__aarch64__)
constexpr uint64_t kFlushBits = uint64_t{1} << 24;     // FPCR.FZ
constexpr uint64_t kRoundingBits = uint64_t{3} << 22;  // FPCR.RMode (0: to nearest)
#else
constexpr uint64_t kFlushBits = 0;
constexpr uint64_t kRoundingBits = 0;
#endif

}  // namespace

uint64_t fp_control() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr();
#elif defined(__aarch64__)
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return 0;
#endif
}

void set_fp_control(uint64_t value) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(static_cast<unsigned>(value));
#elif defined(__aarch64__)
  __asm__ __volatile__("msr fpcr, %0" : : "r"(value));
#else
  (void)value;
#endif
}

FlushDenormalsScope::FlushDenormalsScope() : saved_(fp_control()) {
  if (kFlushBits) set_fp_control((saved_ | kFlushBits) & ~kRoundingBits);
}

FlushDenormalsScope::~FlushDenormalsScope() {
  if (kFlushBits) set_fp_control(saved_);
}

}  // namespace mote::cpu
