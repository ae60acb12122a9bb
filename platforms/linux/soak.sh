#!/usr/bin/env bash
# Soak test (docs/reliability.md): 10,000 runs of the zoo's small CNN on the
# CPU and on the Vulkan device, each failing if resident memory grows more than
# 1 % after the warm-up. Not part of the suite (minutes on lavapipe); CTest's
# soak_short_* run a short version. Usage: platforms/linux/soak.sh [RUNS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10000}
build=${2:-build}
for backend in cpu vulkan; do
  "$build/tests/mote_soak" --backend $backend --runs "$runs" --warmup 500
done
