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
cmake --build "$build" -j"$(nproc)"

start=$(date +%s)
if [ "${1:-}" = "--quick" ]; then
  # Every arm64 code path once, at a fraction of the time: the unit and op
  # tests once per SIMD target that ships on real chips (NEON; SVE2_128:
  # Neoverse V2/N2 and Armv9 phones; SVE_256: Neoverse V1) and once for the
  # vector-length-agnostic SVE2 code at qemu's longest vectors (512 bits),
  # without their slowest cases (the generic SVE target, the same
  # length-agnostic source as SVE2 less its SVE2-only instructions, runs
  # in the full suite only), the zoo models
  # on the CPU and the small CNN on arm64 lavapipe, training (PyTorch parity,
  # on Vulkan too), tools, the installed package and the shared library's
  # exports. Left out: the per-op Vulkan kernel tests (the same shaders and
  # device layer as on x86-64, where they run in full), the large zoo models
  # on lavapipe and the fine-tuning example, which together take most of the
  # time under qemu.
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 1800 \
    -R 'simd_(NEON|SVE2|SVE_256|SVE2_128)_quick|^ZooModels\.|^ZooModelsVulkan\.SmallCnn$|^train\.|vulkan_train|torch_parity|^tools_|package_install|shared_library_exports|vulkan_unavailable'
else
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 1800 -E '_quick$'
fi
echo "arm64 suite: $(( $(date +%s) - start )) s under qemu"
