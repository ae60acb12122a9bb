#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds and runs
# consumers through find_package(mote) and C programs through pkg-config:
# the shared library (mote::mote, `pkg-config mote`) and the static one
# (mote::mote_static, `pkg-config --static mote-static`) of a MOTE_SHARED
# build, or the static library of a plain one.
#
# Cross builds: MOTE_PACKAGE_TOOLCHAIN (a CMake toolchain file),
# MOTE_PACKAGE_CC (the C compiler) and MOTE_PACKAGE_RUN (the emulator that
# runs what they build) come from the environment.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run=${MOTE_PACKAGE_RUN:-}
cc=${MOTE_PACKAGE_CC:-cc}
prefix=$scratch/prefix
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'mote.pc' | head -1)")/..
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

toolchain=()
[ -n "${MOTE_PACKAGE_TOOLCHAIN:-}" ] && toolchain=(-DCMAKE_TOOLCHAIN_FILE="$MOTE_PACKAGE_TOOLCHAIN")
cmake -S "$source_dir/tests/package" -B "$scratch/consumer" "${toolchain[@]}" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
$run "$scratch/consumer/consumer"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
if [ -f "$libdir/libmote.so" ]; then
  # The consumer must really use the shared library.
  readelf -d "$scratch/consumer/consumer" | grep -q 'NEEDED.*libmote\.so' ||
    { echo "package: consumer is not linked against libmote.so"; exit 1; }
  $run "$scratch/consumer/consumer_static"
  "$cc" "$source_dir/tests/package/pkgconfig_consumer.c" -o "$scratch/pc_shared" $(pkg-config --cflags --libs mote)
  $run "$scratch/pc_shared"
  "$cc" "$source_dir/tests/package/pkgconfig_consumer.c" -o "$scratch/pc_static" \
    $(pkg-config --cflags --libs --static mote-static)
  $run "$scratch/pc_static"
else
  "$cc" "$source_dir/tests/package/pkgconfig_consumer.c" -o "$scratch/pc_consumer" \
    $(pkg-config --cflags --libs --static mote)
  $run "$scratch/pc_consumer"
fi
echo "package: find_package(mote) and pkg-config work from $prefix"
