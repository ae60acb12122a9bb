#!/bin/sh
# Runs an arm64 program on this x86-64 machine under qemu-user: CTest's
# emulator for the cross build (toolchain.cmake). MOTE_QEMU_CPU picks the
# emulated CPU: by default qemu's "max" (NEON, SVE, SVE2) with 128-bit SVE
# vectors, the width of phone cores and the cheapest to emulate (512-bit SVE
# runs four times slower under qemu); "max" alone gives 512-bit vectors and
# "max,sve-default-vector-length=32" 256-bit ones, which Highway's SVE_256
# target needs. The arm64 loader and libraries come from Debian's multiarch
# packages, so no sysroot is needed. Leave QEMU_LD_PREFIX unset: pointed
# at the cross compiler's /usr/aarch64-linux-gnu it loads that package's
# ld.so with the multiarch libc of another Debian revision, and every
# pthread_create then hangs (seen as "the thread pool hangs under qemu").
exec qemu-aarch64 -cpu "${MOTE_QEMU_CPU:-max,sve-default-vector-length=16}" "$@"
