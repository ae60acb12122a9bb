#!/usr/bin/env bash
# Cross-builds Mote for arm64 Linux and runs its test suite under qemu-user
# (CTest's emulator, qemu-run.sh): unit and op tests, once more per arm64
# SIMD target (NEON, SVE, SVE2, SVE_256, SVE2_128), the model zoo on the CPU
# and on arm64 lavapipe, training (PyTorch parity included), tools and
# examples. The converter is host-only (conversion happens offline), so its
# tests are not part of this run.
#
#   platforms/linux-aarch64/test.sh           the whole arm64 suite
#   platforms/linux-aarch64/test.sh --quick   CI's subset (see README.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/linux-aarch64/setup-debian.sh
# Vulkan tests must run (on arm64 lavapipe), not skip.
export MOTE_REQUIRE_VULKAN=1

build=build-aarch64
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/platforms/linux-aarch64/toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DMOTE_SHARED=ON -DMOTE_BUILD_CONVERTERS=OFF -DMOTE_BUILD_BENCHMARKS=OFF >/dev/null
quick=0
[ "${1:-}" = "--quick" ] && quick=1
if [ $quick = 1 ]; then
  # Only what the subset runs: two test programs and the shared library.
  cmake --build "$build" -j"$(nproc)" --target mote_unit_tests mote_model_tests mote_shared
else
  cmake --build "$build" -j"$(nproc)"
fi

start=$(date +%s)
if [ $quick = 1 ]; then
  # What is arm64's own, at a fraction of the time: the whole runtime built
  # for arm64, and the unit and op tests for NEON (Jetson Orin and older
  # cores) and SVE2_128 (Neoverse V2/N2 and Armv9 phones) without their
  # slowest cases, then two networks on the CPU (every kernel a small CNN and
  # MobileNetV2 use, with the memory planner between them) and the small CNN
  # on arm64 lavapipe, and libmote.so's exports. SVE_256 (Neoverse V1,
  # Graviton3: about four times NEON's test time under qemu, whose SVE
  # emulation at 256-bit vectors is that slow; tests/CMakeLists.txt), the
  # vector-length-agnostic SVE and SVE2 code
  # (chosen only by other vector lengths, such as A64FX's 512-bit SVE) and
  # the programs whose code is the same on every CPU (training and its
  # PyTorch parity, tools, the installed package, per-op Vulkan kernels,
  # ResNet-18) run in the full suite, which CI left for time: a clean CI run
  # was past 85 minutes on its 2 cores with them.
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 1800 \
    -R 'simd_(NEON|SVE2_128)_quick|^ZooModels\.(SmallCnn|MobileNetV2)CpuMatchesReference$|^ZooModelsVulkan\.SmallCnn$|^shared_library_exports$'
else
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 1800 -E '_quick$'
fi
echo "arm64 suite: $(( $(date +%s) - start )) s under qemu"
