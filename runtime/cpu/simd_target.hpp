// Which instruction set the CPU kernels run with. Highway compiles each SIMD
// kernel once per target (AVX-512, AVX2 and a portable path on x86; NEON,
// SVE and SVE2 on arm64) and picks the best one the CPU has at run time.
// MOTE_SIMD_TARGET=<name> makes one target the best the CPU has, to test a
// code path the machine would not pick (every arm64 target under qemu), to
// compare them, or to step around a suspect one in the field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"

namespace mote::cpu {

// Makes `target` (one Highway target bit, of those this CPU runs: forcing
// another would run instructions the CPU lacks) the best target: code
// compiled for it runs it, the rest the next best one this CPU runs, as on a
// chip whose best target it is. 0 restores the CPU's own choice.
void force_simd_target(int64_t target);

// Applies $MOTE_SIMD_TARGET (case-insensitive, as simd_targets() spells
// them); nothing when it is unset. An unknown name is an error listing the
// choices. Session::create calls it.
Status apply_simd_target_env();

// The targets compiled in that this CPU can run, best first ("AVX3",
// "AVX2", "EMU128"; "NEON", "SVE2"...).
std::vector<std::string> simd_targets();
// The one the kernels use now.
std::string simd_target();

}  // namespace mote::cpu
