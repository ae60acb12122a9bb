#!/usr/bin/env bash
# Installs everything Mote needs to build and test on Debian 12 (apt and pip).
# Idempotent: packages already present are skipped quickly.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake pkg-config python3
  lld                                       # a faster linker (CMakeLists.txt, MOTE_LLD)
  flatbuffers-compiler libflatbuffers-dev   # the .mote schema (flatc at build time)
  libhwy-dev                                # portable SIMD for the CPU kernels
  libcli11-dev                              # command lines of the tools
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and micro-benchmarks
  libprotobuf-dev protobuf-compiler libonnx-dev  # mote-convert reads ONNX with onnx.proto
  libonnx-testdata                          # ONNX 1.12 backend tests (conformance)
  # Vulkan backend: headers and volk to build, glslang to compile shaders;
  # Mesa's lavapipe (a CPU Vulkan driver) and the validation layers so every
  # Vulkan test runs here and in CI without a GPU
  libvulkan-dev libvulkan-volk-dev glslang-tools
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  # model_onnx tests (tests/models/onnx): Debian's /usr/bin/python3 exports
  # torchvision models to ONNX and decodes the MNIST JPEGs
  python3-torch python3-torchvision python3-pil
  # examples/finetune: scikit-learn's digits for Debian's /usr/bin/python3,
  # and Fashion-MNIST's IDX files (/usr/share/datasets/fashion-mnist)
  python3-sklearn dataset-fashion-mnist
  # Fuzzing (platforms/linux/fuzz.sh): clang with libFuzzer's runtime
  clang libclang-rt-14-dev
  # The Java API's JNI library and its host test on the JVM (platforms/android)
  openjdk-17-jdk-headless
)
# Python (the pyenv `python3` on PATH, where pip works): numpy for the tools'
# .npy tests; onnx and onnxruntime for mote-convert --check and model tests;
# flatbuffers and ai-edge-litert (LiteRT's interpreter and schema module) for
# the TFLite converter's tests and --check on TFLite models.
PIP_PACKAGES=(numpy onnx onnxruntime flatbuffers ai-edge-litert)

. "$(dirname "$0")/apt.sh"
apt_install_missing "${APT_PACKAGES[@]}"

if ! python3 -c "import numpy, onnx, onnxruntime, flatbuffers, ai_edge_litert" 2>/dev/null; then
  echo "setup: pip installing ${PIP_PACKAGES[*]}"
  python3 -m pip install --quiet "${PIP_PACKAGES[@]}"
fi
# The peer benchmark's runtimes (its smoke test is part of the suite).
"$(dirname "$0")/../../tests/bench/peers/setup-peers.sh"
echo "setup: dependencies ready"
