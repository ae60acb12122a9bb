#!/usr/bin/env python3
"""int8 against fp32, Mote and onnxruntime side by side (pyenv python3 with
onnx, onnxruntime and numpy; docs/quantization.md shows the table).

For each ONNX model: Mote fp32 (mote-convert), Mote int8 (mote-convert
--quantize int8, with 8-bit and with 7-bit weights: --weight-bits 7 is
what x86 CPUs without VNNI multiply fast), onnxruntime fp32, and onnxruntime int8 (its own
quantize_static: QDQ, per-channel weights, the same kind of calibration
data), timed interleaved in rounds at each thread count in one process.
Calibration is 16 uniform random inputs for both runtimes unless --calibrate
names a folder of .npy samples; random data sets ranges poorly, so the int8
outputs' agreement is printed only as a check that both ran.

  python3 tests/bench/peers/int8_bench.py build MODEL.onnx [MODEL.onnx ...]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtimes  # noqa: E402

ort.set_default_logger_severity(3)
from peer_bench import DEFAULT_SETTLE_MS, time_interleaved  # noqa: E402


class Samples(CalibrationDataReader):
    def __init__(self, name, samples):
        self._it = iter([{name: s} for s in samples])

    def get_next(self):
        return next(self._it, None)


def calibration(model_path, folder):
    inp = onnx.load(model_path).graph.input[0]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    if folder:
        return inp.name, [np.load(f) for f in sorted(glob.glob(os.path.join(folder, "*.npy")))]
    rng = np.random.default_rng(2026)
    return inp.name, [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(16)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", help="Mote's build folder (libmote.so, mote-convert)")
    p.add_argument("models", nargs="+")
    p.add_argument("--calibrate", help="folder of .npy samples (default: random)")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    libmote = os.path.join(args.build, "runtime", "libmote.so")
    convert = os.path.join(args.build, "converters", "mote-convert")
    print(f"Mote {runtimes.Mote.version_of(libmote)}, onnxruntime {ort.__version__}; {args.rounds} interleaved rounds "
          f"of {args.runs} runs, each runtime's after {DEFAULT_SETTLE_MS} ms of untimed runs")
    print("| model | threads | Mote fp32 ms | Mote int8 ms | Mote int8 speed-up | Mote int8, 7-bit weights ms | "
          "its speed-up | onnxruntime fp32 ms | onnxruntime int8 ms | Mote int8 / onnxruntime int8 | "
          "Mote int8 7-bit / onnxruntime int8 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for model in args.models:
            name = os.path.splitext(os.path.basename(model))[0]
            f32 = os.path.join(work, name + ".mote")
            i8 = os.path.join(work, name + "_int8.mote")
            subprocess.run([convert, model, f32], check=True, capture_output=True)
            i8w7 = os.path.join(work, name + "_int8_w7.mote")
            for out, bits in ((i8, "8"), (i8w7, "7")):
                subprocess.run([convert, model, out, "--quantize", "int8", "--calibrate", args.calibrate or "random",
                                "--weight-bits", bits], check=True, capture_output=True)
            input_name, samples = calibration(model, args.calibrate)
            ort_i8 = os.path.join(work, name + "_ort_int8.onnx")
            quantize_static(model, ort_i8, Samples(input_name, samples), quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
            x = samples[0]
            for threads in [int(t) for t in args.threads.split(",")]:
                sessions = {
                    "mote_f32": runtimes.Mote(libmote, f32, threads),
                    "mote_i8": runtimes.Mote(libmote, i8, threads),
                    "mote_i8w7": runtimes.Mote(libmote, i8w7, threads),
                    "ort_f32": runtimes.OnnxRuntime(model, threads),
                    "ort_i8": runtimes.OnnxRuntime(ort_i8, threads),
                }
                ms = {k: statistics.median(v) for k, v in
                      time_interleaved(sessions, x, args.rounds, args.runs, warmup=3,
                                       settle_ms=DEFAULT_SETTLE_MS)[0].items()}
                print(f"| {name} | {threads} | {ms['mote_f32']:.2f} | {ms['mote_i8']:.2f} | "
                      f"{ms['mote_f32'] / ms['mote_i8']:.2f}x | {ms['mote_i8w7']:.2f} | "
                      f"{ms['mote_f32'] / ms['mote_i8w7']:.2f}x | {ms['ort_f32']:.2f} | {ms['ort_i8']:.2f} | "
                      f"{ms['mote_i8'] / ms['ort_i8']:.2f} | {ms['mote_i8w7'] / ms['ort_i8']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
