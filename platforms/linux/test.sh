#!/usr/bin/env bash
# The README's second command (and CI's): install dependencies, build, and run
# the whole test suite under CTest. --sanitize builds a separate tree with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the suite there;
# --tsan builds the thread-safety tests with ThreadSanitizer and runs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/linux/setup-debian.sh
# setup-debian.sh installed lavapipe: Vulkan tests must run, not skip.
export MOTE_REQUIRE_VULKAN=1

# Runs CTest with a temporary directory of its own, and fails when a test
# left anything in it: every test must clean up after itself.
ctest_clean() {
  local tmp status=0 leftovers
  tmp=$(mktemp -d)
  TMPDIR=$tmp ctest "$@" || status=$?
  leftovers=$(ls -A "$tmp")
  if [ -n "$leftovers" ]; then
    echo "test.sh: the tests left files in the temporary directory:" $leftovers
    [ $status -ne 0 ] || status=1
  fi
  rm -rf "$tmp"
  return $status
}

# run_suite DIR [CMAKE_ARGS...] [-- CTEST_ARGS...]
run_suite() {
  local dir=$1; shift
  local cmake_args=() ctest_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ctest_args=("$@")
  cmake -S . -B "$dir" "${cmake_args[@]}" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
  ctest_clean --test-dir "$dir" --output-on-failure -j"$(nproc)" --timeout 900 "${ctest_args[@]}"
}

if [ "${1:-}" = "--tsan" ]; then
  # ThreadSanitizer on the thread-safety tests (tests/reliability/threads_test.cpp):
  # only the runtime and that test program are built, which keeps this stage
  # short, with clang as in --sanitize (build 206 s against GCC's ~355 s here).
  dir=build-tsan
  cmake -S . -B $dir -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOTE_SANITIZE=thread -DMOTE_BUILD_CONVERTERS=OFF \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DMOTE_BUILD_TOOLS=OFF -DMOTE_BUILD_BENCHMARKS=OFF -DMOTE_JAVA=OFF >/dev/null
  cmake --build $dir -j"$(nproc)" --target mote_reliability_tests
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/platforms/linux/tsan.supp" \
    ctest_clean --test-dir $dir --output-on-failure -R '^Threads\.' --timeout 900
elif [ "${1:-}" = "--sanitize" ]; then
  # Benchmarks add nothing to a sanitizer run, and neither do the whole
  # networks whose time is mostly PyTorch's export and onnxruntime, not Mote:
  # their op kinds run sanitized in the op tests, the conformance suites and
  # the smaller networks kept here (MobileNetV2 and the small CNN through the
  # memory planner; the transformer, U-Net, LSTM, ViT and MNIST conversions).
  # Left to the Release run: ResNet-18 (CPU and Vulkan), and the SSDlite,
  # EfficientNet-B0, ShuffleNetV2, SqueezeNet, MobileNetV2 and
  # MobileNetV3 conversions (together ~340 s of test time under ASan). The
  # per-op Vulkan kernel tests are not built in a sanitizer build
  # (MOTE_VULKAN_KERNEL_TESTS, tests/CMakeLists.txt says why).
  # clang builds this tree faster than GCC and its UndefinedBehaviorSanitizer
  # checks more (float-to-int conversions out of range, enum values): the
  # build took 945 s against GCC's ~1,500 s on CI's two cores, the tests
  # 319 s against 383 s (2026-11-29).
  # The JNI library is not built: its test runs in other builds only (the
  # JVM cannot load an instrumented library, platforms/android/CMakeLists.txt).
  # allocator_may_return_null:
  # Mote reports a failed allocation as an error (the corrupted-model tests
  # ask for absurd sizes); ASan would otherwise abort before we can.
  # lsan.supp: leaks inside the Vulkan driver (lavapipe), not Mote's.
  LSAN_OPTIONS=suppressions=$PWD/platforms/linux/lsan.supp \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOTE_SANITIZE=ON \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMOTE_JAVA=OFF -DMOTE_BUILD_BENCHMARKS=OFF -- \
      -E '^ZooModels(Vulkan)?\.ResNet18|^model_onnx_(ssdlite|efficientnet_b0|shufflenet_v2_x1_0|squeezenet1_1|mobilenet_v2|mobilenet_v3_small|resnet18)$'
else
  run_suite build -DCMAKE_BUILD_TYPE=Release -DMOTE_SHARED=ON
fi
