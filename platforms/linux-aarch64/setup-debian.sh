#!/usr/bin/env bash
# Installs what the arm64 cross build and its qemu test run need on a Debian
# 12 x86-64 machine, on top of the host's own set-up (platforms/linux/
# setup-debian.sh: flatc, glslang and python3 run on the host). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/linux/setup-debian.sh

. platforms/linux/apt.sh

PACKAGES=(
  crossbuild-essential-arm64 qemu-user        # the compilers; qemu-aarch64 runs the tests
  libc6:arm64 libstdc++6:arm64                # the arm64 loader and C++ runtime qemu finds through multiarch
  libhwy-dev:arm64 libflatbuffers-dev:arm64   # what the runtime links
  libvulkan-dev:arm64 mesa-vulkan-drivers:arm64  # the Vulkan loader and arm64 lavapipe
  vulkan-validationlayers:arm64               # the Vulkan tests run with validation, as on x86-64
  libgtest-dev:arm64 libgmock-dev:arm64       # the tests
)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture to dpkg"
  as_root dpkg --add-architecture arm64
  as_root apt-get update -qq
fi
apt_install_missing "${PACKAGES[@]}"
echo "setup: arm64 cross build ready"
