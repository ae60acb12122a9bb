#!/usr/bin/env bash
# The peer benchmark in one command: installs the peers (pip, into the pyenv
# python3), builds Mote (Release, shared library) if needed, then runs
# peer_bench.py over every model at 1 and 2 threads and writes the table into
# docs/benchmarks.md and the chart into docs/images/peer-bench.png.
# Takes about 10 minutes on 2 cores; run it on an otherwise idle machine.
# Extra arguments go to peer_bench.py (e.g. --models resnet18 --rounds 5).
set -euo pipefail
cd "$(dirname "$0")/../../.."
platforms/linux/setup-debian.sh  # installs the peers too (setup-peers.sh)
python3 -m pip install --quiet matplotlib
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMOTE_SHARED=ON >/dev/null
cmake --build build -j"$(nproc)" --target mote-convert mote_shared
exec python3 tests/bench/peers/peer_bench.py --build build --docs "$@"
