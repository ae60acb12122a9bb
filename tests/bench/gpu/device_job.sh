#!/bin/bash
# Everything docs/benchmarks.md's GPU table needs, in one run on a machine
# with a GPU and no package registry (the device tool's machine): run from
# the repository root there, with .gl/ (the Vulkan loader, validation layers
# and vulkaninfo as Debian .debs) and .dev/ (tests/bench/gpu/pack.sh) carried.
# Writes its logs under $OUT (at most 8 files):
#   job.log           every step's output
#   vulkan_tests.log  the Vulkan test suite with the validation layer on
#   ceilings.json     copy bandwidth, fp32 and fp16 GEMM through torch/cuBLAS
#   gpu_bench.json    Mote against ncnn's Vulkan path, the profile's tiles
#   tune.log          mote-bench --tune on each model (GEMM tiles per shape)
#   gpu_bench_tuned.json  the same as gpu_bench.json with the tuned tiles
# Each step has its own time limit so that a hung one leaves the others.
# QUICK=1 runs a small version of every step (to try the script on lavapipe).
set -uo pipefail
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
  tests_filter="*MatMul*:*Conv*"; models=mobilenet_v2; gemms=256; rounds=2; tune_seconds=10
else
  tests_filter="*"; models=mobilenet_v2,resnet18,resnet50; gemms=1024,2048,4096; rounds=3; tune_seconds=40
fi
out=${OUT:-/tmp/mote-gpu-out}
mkdir -p "$out"
exec > >(tee "$out/job.log") 2>&1
root=/tmp/mote-gpu
work=/tmp/mote-gpu-work
step() { echo; echo "== $(date +%T) $*"; }

step "setup: loader, validation layers, Mote's binaries, ncnn and pnnx"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p "$root" "$work" && tar -C "$root" -xJf .dev/mote-gpu.tar.xz
export LD_LIBRARY_PATH=$root/lib
python3 -c "import ncnn" 2>/dev/null ||
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .dev/ncnn-*.whl || exit 1
mkdir -p /tmp/site/pnnx && cp "$root/bin/pnnx" /tmp/site/pnnx/pnnx  # found as runtimes.pnnx_executable()
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$nvidia_icd" ] && ! vulkaninfo --summary 2>/dev/null | grep -qi nvidia; then
  export VK_DRIVER_FILES=$nvidia_icd
fi
# Pipeline cache and GEMM tuning file; empty until the tuning step.
export MOTE_CACHE_DIR=$work/cache

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
vulkaninfo --summary 2>&1 | sed -n '/^Devices:/,$p' | head -30
"$root/bin/mote-info" --devices | tee "$work/devices.txt"
if ! grep -q "^device " "$work/devices.txt"; then
  echo "no Vulkan device: nothing to measure. The loader's view:"
  ls -la /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1
  cat "$nvidia_icd" 2>&1
  VK_LOADER_DEBUG=error,warn,driver vulkaninfo --summary 2>&1 | head -40
  exit 1
fi

step "ceilings (torch, cuBLAS)"
timeout 120 python3 tests/bench/gpu/ceilings.py --json "$out/ceilings.json"

step "Vulkan test suite, validation layer on"
MOTE_VK_VALIDATION=1 timeout 200 "$root/bin/mote_vulkan_tests" --gtest_brief=1 --gtest_filter="$tests_filter" \
  >"$out/vulkan_tests.log" 2>&1
echo "mote_vulkan_tests exit $?"
# The CTest variants: shared-memory reductions with subgroups switched off,
# int8 shaders without the integer dot product.
for variant in "subgroup:*ReduceVk*:*SoftmaxVk*:*GlobalPoolVk*:*InstanceNormVk*:*LayerNormVk*:*ArgReduceVk*" \
               "dot:QLinearConvVk.*:QLinearOpsVk.MatMul*:Int8GraphVk.*"; do
  [ "$quick" = 1 ] && break
  MOTE_VK_VALIDATION=1 MOTE_VK_DISABLE=${variant%%:*} timeout 120 "$root/bin/mote_vulkan_tests" --gtest_brief=1 \
    --gtest_filter="${variant#*:}" >>"$out/vulkan_tests.log" 2>&1
  echo "mote_vulkan_tests with MOTE_VK_DISABLE=${variant%%:*} exit $?"
done
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" "$out/vulkan_tests.log" | head -40
echo "validation errors: $(grep -c 'Vulkan validation error' "$out/vulkan_tests.log")"

step "models: seeded weights"
mkdir -p "$work/onnx"
for name in ${models//,/ }; do
  python3 tests/bench/gpu/weightless_onnx.py fill "$root/models/$name.weightless.onnx" "$work/onnx/$name.onnx"
done
ls -la "$work/onnx"

bench() {  # $1: json name; the rest: environment for Mote
  env "${@:2}" timeout 200 python3 tests/bench/peers/gpu_bench.py --libmote "$root/lib/libmote.so" \
    --mote-convert "$root/bin/mote-convert" --mote-bench "$root/bin/mote-bench" --onnx-dir "$work/onnx" \
    --work "$work/bench" --models "$models" --gemm "$gemms" --rounds "$rounds" --runs 10 --json "$out/$1"
}
step "Mote against ncnn, Vulkan, the profile's tiles"
bench gpu_bench.json

step "GEMM tuning (mote-bench --tune; the tuning file goes to \$MOTE_CACHE_DIR)"
for model in ${models//,/ }; do
  timeout 150 "$root/bin/mote-bench" "$work/bench/$model.mote" --backend vulkan --tune --tune-seconds "$tune_seconds" \
    --repeat 10 >>"$out/tune.log" 2>&1
  echo "$model: mote-bench --tune exit $?"
done
grep -E "GEMM tuning on|a run:|GEMM tiles" "$out/tune.log"

step "cold and warm start: process start to first result (mote-run)"
# The driver's own shader cache off, so 'cold' compiles every pipeline and
# 'warm' is what Mote's pipeline cache file gives.
for model in ${models//,/ }; do
  rm -rf "$work/start-cache"
  for start in cold warm; do
    t0=$(date +%s.%N)
    env __GL_SHADER_DISK_CACHE=0 MOTE_CACHE_DIR="$work/start-cache" "$root/bin/mote-run" \
      "$work/bench/$model.mote" --backend vulkan --repeat 0 --warmup 0 --values 0 >"$work/run.txt" 2>&1
    t1=$(date +%s.%N)
    echo "$model $start: $(python3 -c "print(f'{($t1 - $t0) * 1e3:.0f}')") ms process start to first result;" \
      "$(grep -E 'prepare|first run|cache |gpu ' "$work/run.txt" | tr -s ' ' | tr '\n' ';')"
  done
done

step "Mote against ncnn, Vulkan, the tuned tiles"
bench gpu_bench_tuned.json
step "done"
