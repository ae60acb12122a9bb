# Cross-compiling Mote for arm64 Linux (Jetson, arm64 boards) on a Debian 12
# x86-64 machine: the compilers of crossbuild-essential-arm64 and the arm64
# multiarch packages (libhwy-dev:arm64, libflatbuffers-dev:arm64, ...), whose
# libraries live in /usr/lib/aarch64-linux-gnu and whose headers are shared
# with the host in /usr/include. Generators (flatc, glslangValidator,
# python3) are host programs and are found on the host's PATH.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=platforms/linux-aarch64/toolchain.cmake
#
# Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR); the loader and
# libraries of the arm64 packages are found through multiarch, so no sysroot
# copy is needed. platforms/linux-aarch64/test.sh does all of this.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MOTE_AARCH64_TRIPLET aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${MOTE_AARCH64_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${MOTE_AARCH64_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${MOTE_AARCH64_TRIPLET})

# Libraries and CMake packages of the target only; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${MOTE_AARCH64_TRIPLET} /usr/lib/${MOTE_AARCH64_TRIPLET} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${MOTE_AARCH64_TRIPLET}/pkgconfig:/usr/share/pkgconfig)

# qemu-run.sh starts qemu-aarch64 with `-cpu max`, which has every
# instruction set qemu emulates (SVE and SVE2 included), so every Highway
# target compiled in can be chosen and tested (MOTE_SIMD_TARGET).
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/qemu-run.sh)
