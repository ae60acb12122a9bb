#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz) with clang's libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer in build-fuzz, and runs each one for SECONDS
# (default 30) from its seeds and its crash regressions. A crash, a leak, an
# out-of-memory or a timeout fails the run; the input that caused it is kept
# in build-fuzz/artifacts/TARGET/: add it to tests/fuzz/regressions/TARGET/
# with the fix, so every test run replays it.
#
#   platforms/linux/fuzz.sh [SECONDS] [TARGET...]   (targets: model onnx tflite npy pipeline_cache optimizer_state)
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/linux/setup-debian.sh
seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(model onnx tflite npy pipeline_cache optimizer_state)

dir=build-fuzz
CC=clang CXX=clang++ cmake -S . -B $dir -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOTE_FUZZ=ON -DMOTE_BUILD_TESTS=OFF \
  -DMOTE_BUILD_BENCHMARKS=OFF -DMOTE_JAVA=OFF >/dev/null
cmake --build $dir -j"$(nproc)" --target mote_fuzz_seeds "${targets[@]/#/mote_fuzz_}"
[ -d $dir/seeds ] || $dir/tests/fuzz/mote_fuzz_seeds $dir/seeds
# TFLite seeds come from the converter's tests (python3 with ai-edge-litert).
[ -d $dir/seeds/tflite ] || python3 converters/tests/tflite_test.py --write-models $dir/seeds/tflite || true

# allocator_may_return_null: Mote reports a failed allocation as an error.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/platforms/linux/lsan.supp
status=0
for t in "${targets[@]}"; do
  mkdir -p $dir/corpus/$t $dir/artifacts/$t
  echo "fuzz: $t for ${seconds} s"
  # The first folder collects new inputs; the others are read only.
  inputs=($dir/corpus/$t $dir/seeds/$t)
  [ -d tests/fuzz/regressions/$t ] && inputs+=(tests/fuzz/regressions/$t)
  if ! $dir/tests/fuzz/mote_fuzz_$t -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix=$dir/artifacts/$t/ "${inputs[@]}" > $dir/fuzz_$t.log 2>&1; then
    status=1
    echo "fuzz: $t FAILED; the last lines of $dir/fuzz_$t.log:"
    tail -40 $dir/fuzz_$t.log
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" $dir/fuzz_$t.log | sed "s/^/fuzz: $t /" || true
done
exit $status
