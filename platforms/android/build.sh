#!/usr/bin/env bash
# Builds Mote for Android: libmote.so and the JNI library libmote_jni.so for
# arm64-v8a and x86_64 with the NDK's CMake toolchain (API level 26: Vulkan
# 1.1 is loaded at run time through volk, so nothing links libvulkan), then,
# where Gradle is installed, the AAR with the Java API (aar/).
#
#   ANDROID_NDK=/path/to/ndk HWY_SOURCE=/path/to/highway platforms/android/build.sh [--abi arm64-v8a] [--no-aar]
#
# Highway's dispatch code must be compiled for each ABI, and the NDK has no
# Debian packages: HWY_SOURCE is a Highway source tree (1.0.3 or later, e.g.
# `apt-get source highway` with deb-src enabled, or a release tarball), built
# here once per ABI with the same toolchain.
#
# Output: build-android/<abi>/ (the libraries), and
# platforms/android/aar/build/outputs/aar/ (mote-release.aar).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${ANDROID_NDK:?set ANDROID_NDK to the Android NDK (r26 or later)}"
: "${HWY_SOURCE:?set HWY_SOURCE to a Highway source tree (see the comment at the top)}"
toolchain=$ANDROID_NDK/build/cmake/android.toolchain.cmake
abis=(arm64-v8a x86_64)
aar=1
while [ $# -gt 0 ]; do
  case $1 in
    --abi) abis=("$2"); shift 2 ;;
    --no-aar) aar=0; shift ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

# Host generators (flatc, glslangValidator, python3) come from the host, and
# so do the architecture-independent headers the NDK lacks (volk,
# FlatBuffers), copied aside so the host's /usr/include never reaches an
# Android compile. Vulkan's own headers come from the NDK's sysroot.
platforms/linux/setup-debian.sh
headers=$PWD/build-android/host-headers
mkdir -p "$headers"
cp -r /usr/include/volk.h /usr/include/flatbuffers "$headers"/
for abi in "${abis[@]}"; do
  out=build-android/$abi
  android=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DANDROID_ABI="$abi" -DANDROID_PLATFORM=android-26
           -DANDROID_STL=c++_shared -DCMAKE_BUILD_TYPE=Release)
  cmake -S "$HWY_SOURCE" -B "$out/hwy" "${android[@]}" -DCMAKE_INSTALL_PREFIX="$PWD/$out/hwy-install" \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DHWY_ENABLE_TESTS=OFF \
    -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF >/dev/null
  cmake --build "$out/hwy" -j"$(nproc)" --target install >/dev/null
  cmake -S . -B "$out" "${android[@]}" \
    -Dhwy_DIR="$PWD/$out/hwy-install/lib/cmake/hwy" -DMOTE_FLATBUFFERS_INCLUDE="$headers" \
    -DMOTE_VOLK_INCLUDE="$headers" \
    -DCMAKE_BUILD_TYPE=Release -DMOTE_SHARED=ON \
    -DMOTE_BUILD_TESTS=OFF -DMOTE_BUILD_TOOLS=OFF -DMOTE_BUILD_EXAMPLES=OFF -DMOTE_BUILD_BENCHMARKS=OFF \
    -DMOTE_BUILD_CONVERTERS=OFF
  cmake --build "$out" -j"$(nproc)" --target mote_shared mote_jni
  mkdir -p platforms/android/aar/src/main/jniLibs/"$abi"
  cp "$out"/runtime/libmote.so "$out"/platforms/android/libmote_jni.so platforms/android/aar/src/main/jniLibs/"$abi"/
done

if [ "$aar" = 1 ]; then
  if command -v gradle >/dev/null; then
    (cd platforms/android/aar && gradle --no-daemon assembleRelease)
  else
    echo "build.sh: no gradle on PATH; the libraries are in platforms/android/aar/src/main/jniLibs"
  fi
fi
