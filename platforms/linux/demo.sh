#!/usr/bin/env bash
# The README's first command: install dependencies, build Release, and run the
# demo: the bundled small CNN and a MobileNetV2-shaped network on the Vulkan
# device (lavapipe where there is no GPU; the CPU where there is no Vulkan at
# all), with outputs, where each op ran, and latency next to the CPU backend.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/linux/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
build/examples/model_zoo/mote-make-models build/models
echo
build/sdk/tools/mote-info --devices
echo
echo "== demo: small CNN (1x1x28x28 -> 10 classes), random input, Vulkan =="
build/sdk/tools/mote-run build/models/small_cnn.mote --backend vulkan --placement --repeat 20 --output-dir build/demo-out
echo
echo "== demo: MobileNetV2 shape (1x3x224x224 -> 1000), Vulkan and CPU side by side =="
build/sdk/tools/mote-bench build/models/mobilenet_v2.mote --backend vulkan,cpu --repeat 10
