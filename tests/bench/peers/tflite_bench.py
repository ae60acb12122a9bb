#!/usr/bin/env python3
"""TFLite models through Mote against LiteRT's interpreter: outputs and
latency (pyenv python3 with numpy, flatbuffers and ai-edge-litert;
docs/quantization.md shows the table).

Builds MobileNetV2 (224x224, random He-initialised weights) as a float32
TFLite model and as the int8 model TFLite's converter would make of it
(per-channel int8 weights, int8 activations calibrated on one random image,
float input and output), with LiteRT's own schema module
(converters/tests/tflite_models.py). Each is converted with mote-convert and
run in Mote and in LiteRT (default delegate, XNNPACK) on the same inputs:
the outputs are compared (float: max relative difference; int8: max
difference in output quantisation steps and top-1 agreement over --images
random images), then both are timed interleaved in rounds at each thread
count in one process.

  python3 tests/bench/peers/tflite_bench.py build [--threads 1,2] [--rounds 10]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "converters", "tests"))
import runtimes  # noqa: E402
import tflite_models as tm  # noqa: E402
from peer_bench import DEFAULT_SETTLE_MS, time_interleaved  # noqa: E402


def build_models(work, seed=2026):
    x = np.random.default_rng(seed).uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
    g = tm.QuantGraph()
    float_model = g.serialize(tm.mobilenet_v2(g, np.random.default_rng(seed)))
    ranges = tm.calibrate(lambda fg: tm.mobilenet_v2(fg, np.random.default_rng(seed)), {"image": x})
    q = tm.QuantGraph(ranges)
    int8_model = q.serialize(tm.mobilenet_v2(q, np.random.default_rng(seed)))
    paths = {}
    for name, data in (("float32", float_model), ("int8", int8_model)):
        paths[name] = os.path.join(work, f"mobilenet_v2_{name}.tflite")
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths


def agreement(mote, litert, images, rng):
    """(max |diff| relative to max |LiteRT|, top-1 agreement) over images."""
    worst, agree = 0.0, 0
    for _ in range(images):
        x = rng.uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
        a, b = mote.run(x), litert.run(x)
        worst = max(worst, float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12)))
        agree += int(np.argmax(a) == np.argmax(b))
    return worst, agree


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", help="Mote's build folder (libmote.so, mote-convert)")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--images", type=int, default=20, help="random images for the output comparison")
    args = p.parse_args()
    libmote = os.path.join(args.build, "runtime", "libmote.so")
    convert = os.path.join(args.build, "converters", "mote-convert")
    import ai_edge_litert
    print(f"Mote {runtimes.Mote.version_of(libmote)}, LiteRT (ai-edge-litert) {ai_edge_litert.__version__}; "
          f"{args.rounds} interleaved rounds of {args.runs} runs, each runtime's after {DEFAULT_SETTLE_MS} ms of untimed runs")
    with tempfile.TemporaryDirectory() as work:
        paths = build_models(work)
        motes = {}
        for name, path in paths.items():
            motes[name] = path[:-len(".tflite")] + ".mote"
            out = subprocess.run([convert, path, motes[name]], check=True, capture_output=True, text=True).stdout
            print(f"{name}: " + " ".join(line.strip() for line in out.splitlines() if "fold_qdq" in line or
                                         "Mote ops after" in line))
        print("| model | outputs: max|Mote - LiteRT| / max|LiteRT| | top-1 agreement |")
        print("|---|---:|---:|")
        for name in paths:
            worst, agree = agreement(runtimes.Mote(libmote, motes[name], 1), runtimes.LiteRt(paths[name], 1),
                                     args.images, np.random.default_rng(7))
            print(f"| MobileNetV2 {name} | {worst:.3g} | {agree}/{args.images} |", flush=True)
        print("| model | threads | Mote ms | LiteRT ms | LiteRT / Mote |")
        print("|---|---:|---:|---:|---:|")
        x = np.random.default_rng(1).uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
        for threads in [int(t) for t in args.threads.split(",")]:
            sessions = {}
            for name in paths:
                sessions[("mote", name)] = runtimes.Mote(libmote, motes[name], threads)
                sessions[("litert", name)] = runtimes.LiteRt(paths[name], threads)
            ms = {k: statistics.median(v) for k, v in time_interleaved(sessions, x, args.rounds, args.runs,
                                                                          warmup=3, settle_ms=DEFAULT_SETTLE_MS)[0].items()}
            for name in paths:
                m, l = ms[("mote", name)], ms[("litert", name)]
                print(f"| MobileNetV2 {name} | {threads} | {m:.2f} | {l:.2f} | {l / m:.2f} |", flush=True)


if __name__ == "__main__":
    main()
