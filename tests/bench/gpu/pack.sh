#!/bin/bash
# Packs what tests/bench/gpu/device_job.sh needs on the device machine into
# one folder of this checkout that git ignores (.dev/ by default), to be named
# in the device tool's `carry`: Mote's binaries and libmote.so with the
# shared libraries they load from this machine (libhwy), pnnx, the ncnn wheel
# for the device's Python 3.12, and the benchmark models without their
# weights (weightless_onnx.py puts seeded ones back there). Run from the
# repository root after a Release build with -DMOTE_SHARED=ON:
#   tests/bench/gpu/pack.sh [BUILD] [DEST]
set -euo pipefail
build=${1:-build}
dest=${2:-.dev}
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/models" "$dest"

# Built here first, so that nothing packed is older than the sources.
cmake --build "$build" -j2 --target mote-info mote-bench mote-run mote-convert mote_vulkan_tests mote_shared
for tool in sdk/tools/mote-info sdk/tools/mote-bench sdk/tools/mote-run converters/mote-convert tests/mote_vulkan_tests; do
  cp "$build/$tool" "$stage/bin/"
done
cp "$build/runtime/libmote.so" "$stage/lib/"
cp -L "$(ldconfig -p | awk '/libhwy.so.1 /{print $NF; exit}')" "$stage/lib/libhwy.so.1"
pnnx=$(python3 -c "import sys; sys.path.insert(0, '$here/../peers'); import runtimes; print(runtimes.pnnx_executable() or '')")
[ -n "$pnnx" ] || { echo "pack.sh: pnnx not installed (pip install --no-deps pnnx)" >&2; exit 1; }
cp "$pnnx" "$stage/bin/pnnx"

# The models: exported here with Debian's torch, their weights stripped.
python_torch=/usr/bin/python3
"$python_torch" "$here/../../models/onnx/export_models.py" "$stage/export" --models mobilenet_v2,resnet18,resnet50 \
  --variants static >/dev/null
for f in "$stage"/export/*_static.onnx; do
  name=$(basename "$f" _static.onnx)
  python3 "$here/weightless_onnx.py" strip "$f" "$stage/models/$name.weightless.onnx"
done
rm -rf "$stage/export"

tar -C "$stage" -cJf "$dest/mote-gpu.tar.xz" bin lib models
rm -f "$dest"/ncnn-*.whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d "$dest" \
  "ncnn==$(python3 -c 'import ncnn; print(ncnn.__version__)')"
du -sh "$dest"/*
