#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds and runs a
# consumer through find_package(mote) and a C program through pkg-config.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir/tests/package" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib/$(gcc -print-multiarch 2>/dev/null || true)/pkgconfig"
cc "$source_dir/tests/package/pkgconfig_consumer.c" -o "$scratch/pc_consumer" $(pkg-config --cflags --libs --static mote)
"$scratch/pc_consumer"
