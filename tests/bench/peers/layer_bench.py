#!/usr/bin/env python3
"""Single layers that real networks have, Mote against onnxruntime on the
CPU: where a kernel falls to a slow path shows here before it hides in a
whole network's time (pyenv python3: numpy, onnx, onnxruntime).

Each layer is written as a one- or two-node ONNX model (random weights,
fixed seed) and converted with mote-convert; Mote's output (through
libmote.so) is compared with onnxruntime's (max|diff| / max|onnxruntime|,
goal 1e-4). Then the two are timed in alternating rounds: in each, Mote's
median over --runs runs of mote-bench (which times the session's runs
alone; through Python's ctypes each run's multi-megabyte output was copied
into a bytes object, which cost large layers up to 0.1 ms), then
onnxruntime's median over as many runs in this process. Printed: the
medians over the rounds, and Mote's time over onnxruntime's (below 1: Mote
is faster). Layers are chosen from the kinds a
kernel specialises on: 1-D and k x 1 convolutions over long rows (audio,
byte and sensor networks), large depthwise kernels (MediaPipe's 5x5,
ConvNeXt's 7x7), dilated convolutions (DeepLab), 1x7 / 7x1 (Inception),
patchifying stems, 3-D convolutions, transposed convolutions, stride-1
pools (Inception, YOLO's SPPF) and layout transposes.

  layer_bench.py --build build [--layers dw7x7_96_56,dilated3x3_256_33] [--threads 1,2] [--rounds 6]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runtimes  # noqa: E402
from peer_bench import AGREEMENT, add_build_arguments  # noqa: E402


def conv(x, w, group=1, relu=False, op="Conv", **attrs):
    """A Conv (or ConvTranspose) layer: input shape, weight shape, attributes."""
    return {"x": x, "op": op, "w": w, "group": group, "relu": relu, "attrs": attrs}


def node(x, op, **attrs):
    """A weightless layer: input shape, op type, attributes."""
    return {"x": x, "op": op, "attrs": attrs}


# name: layer. Sizes are those of the networks named, at their usual input.
LAYERS = {
    "conv1d_64_k5_16k": conv([1, 64, 16384], [64, 64, 5], pads=[2, 2]),
    "row1x5_64_16k": conv([1, 64, 1, 16384], [64, 64, 1, 5], pads=[0, 2, 0, 2]),
    "col5x1_64_16k": conv([1, 64, 16384, 1], [64, 64, 5, 1], pads=[2, 0, 2, 0]),
    "dwcol5x1_64_16k": conv([1, 64, 16384, 1], [64, 1, 5, 1], group=64, pads=[2, 0, 2, 0]),
    "dw3x3_128_56": conv([1, 128, 56, 56], [128, 1, 3, 3], group=128, pads=[1, 1, 1, 1]),
    "dw5x5_128_56": conv([1, 128, 56, 56], [128, 1, 5, 5], group=128, pads=[2, 2, 2, 2]),
    "dw5x5_24_128": conv([1, 24, 128, 128], [24, 1, 5, 5], group=24, pads=[2, 2, 2, 2]),
    "dw7x7_96_56": conv([1, 96, 56, 56], [96, 1, 7, 7], group=96, pads=[3, 3, 3, 3]),
    "dilated3x3_256_33": conv([1, 256, 33, 33], [256, 256, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2]),
    "incep1x7_128_17": conv([1, 128, 17, 17], [128, 128, 1, 7], relu=True, pads=[0, 3, 0, 3]),
    "incep7x1_128_17": conv([1, 128, 17, 17], [128, 128, 7, 1], relu=True, pads=[3, 0, 3, 0]),
    "patchify4x4_96": conv([1, 3, 224, 224], [96, 3, 4, 4], strides=[4, 4]),
    "conv3d_32_8x28": conv([1, 32, 8, 28, 28], [32, 32, 3, 3, 3], pads=[1, 1, 1, 1, 1, 1]),
    "deconv4x4s2_256_16": conv([1, 256, 16, 16], [256, 128, 4, 4], op="ConvTranspose", strides=[2, 2],
                               pads=[1, 1, 1, 1]),
    "avgpool3x3s1_192_35": node([1, 192, 35, 35], "AveragePool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    "maxpool5x5s1_256_20": node([1, 256, 20, 20], "MaxPool", kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
    "nchw_to_nhwc_256_56": node([1, 256, 56, 56], "Transpose", perm=[0, 2, 3, 1]),
    # MobileNetV3-Small's first depthwise layer.
    "dw3x3s2_16_112": conv([1, 16, 112, 112], [16, 1, 3, 3], group=16, relu=True, strides=[2, 2], pads=[1, 1, 1, 1]),
    # ResNet-50's 1x1 layers: widening and narrowing on 56x56, narrowing on 7x7.
    "pointwise_64_256_56": conv([1, 64, 56, 56], [256, 64, 1, 1], relu=True),
    "pointwise_256_64_56": conv([1, 256, 56, 56], [64, 256, 1, 1], relu=True),
    "pointwise_2048_512_7": conv([1, 2048, 7, 7], [512, 2048, 1, 1], relu=True),
    # ResNet-50's stride-2 layers: the 3x3 of its second and last stages, the last stage's 1x1 shortcut, the 7x7 stem.
    "conv3x3s2_128_56": conv([1, 128, 56, 56], [128, 128, 3, 3], relu=True, strides=[2, 2], pads=[1, 1, 1, 1]),
    "conv3x3s2_512_14": conv([1, 512, 14, 14], [512, 512, 3, 3], relu=True, strides=[2, 2], pads=[1, 1, 1, 1]),
    "shortcut1x1s2_1024_2048_14": conv([1, 1024, 14, 14], [2048, 1024, 1, 1], strides=[2, 2]),
    "stem7x7s2_3_64_224": conv([1, 3, 224, 224], [64, 3, 7, 7], relu=True, strides=[2, 2], pads=[3, 3, 3, 3]),
    # SqueezeNet 1.1's first layer and its classifier.
    "stem3x3s2_3_64_224": conv([1, 3, 224, 224], [64, 3, 3, 3], relu=True, strides=[2, 2]),
    "pointwise_512_1000_13": conv([1, 512, 13, 13], [1000, 512, 1, 1], relu=True),
}


def write_model(layer, path, seed=2026):
    rng = np.random.default_rng(seed)
    init, nodes = [], []
    inputs = ["x"]
    if "w" in layer:
        w = layer["w"]
        out_channels = w[1] * layer["group"] if layer["op"] == "ConvTranspose" else w[0]
        init = [numpy_helper.from_array((rng.standard_normal(w) * 0.1).astype(np.float32), "w"),
                numpy_helper.from_array((rng.standard_normal(out_channels) * 0.1).astype(np.float32), "b")]
        inputs += ["w", "b"]
        layer = dict(layer, attrs=dict(layer["attrs"], group=layer["group"]))
    last = "y"
    if layer.get("relu"):
        last = "pre"
        nodes.append(helper.make_node("Relu", [last], ["y"]))
    nodes.insert(0, helper.make_node(layer["op"], inputs, [last], **layer["attrs"]))
    graph = helper.make_graph(nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, layer["x"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def mote_bench_p50(mote_bench, model, threads, runs, warmup):
    """mote-bench's median of `runs` timed runs, in ms."""
    out = subprocess.run([mote_bench, model, "--backend", "cpu", "--threads", str(threads), "--repeat", str(runs),
                          "--warmup", str(warmup)], capture_output=True, text=True, check=True).stdout
    timings = runtimes.mote_bench_timings(out, "cpu")
    if timings is None:
        raise RuntimeError(f"no timing line in mote-bench's output:\n{out}")
    return timings["p50"]


def ort_p50(session, x, runs, warmup):
    """onnxruntime's median of `runs` timed runs, in ms."""
    for _ in range(warmup):
        session.run(x)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(x)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(parser)
    parser.add_argument("--mote-bench", help="mote-bench to run (default: BUILD/sdk/tools/mote-bench)")
    parser.add_argument("--layers", default=",".join(LAYERS), help="comma-separated, from: " + ", ".join(LAYERS))
    parser.add_argument("--threads", default="1", help="thread counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per runtime in each round")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per runtime in each round")
    parser.add_argument("--require-agreement", action="store_true",
                        help=f"exit 1 when Mote differs from onnxruntime by more than {AGREEMENT:g} (the smoke test)")
    args = parser.parse_args()
    names = args.layers.split(",")
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        sys.exit(f"layer_bench.py: unknown layer(s) {', '.join(unknown)}; known: {', '.join(LAYERS)}")
    libmote = args.libmote or os.path.join(args.build, "runtime", "libmote.so")
    mote_convert = args.mote_convert or os.path.join(args.build, "converters", "mote-convert")
    mote_bench = args.mote_bench or os.path.join(args.build, "sdk", "tools", "mote-bench")
    for path, what in ((libmote, "configure the build with -DMOTE_SHARED=ON"), (mote_convert, "build mote-convert"),
                       (mote_bench, "build mote-bench")):
        if not os.path.exists(path):
            sys.exit(f"layer_bench.py: {path} not found: {what}")

    disagreements = []
    print(f"{'layer':<22} {'threads':>7} {'Mote ms':>9} {'onnxruntime ms':>15} {'Mote/ort':>9} {'max|diff|':>10}")
    with tempfile.TemporaryDirectory(prefix="mote_layer_bench_") as work:
        # onnxruntime's session file (.ses) goes here too, and is removed with it.
        os.environ["TMPDIR"] = work
        for name in names:
            layer = LAYERS[name]
            onnx_path = os.path.join(work, name + ".onnx")
            mote_path = os.path.join(work, name + ".mote")
            write_model(layer, onnx_path)
            subprocess.run([mote_convert, onnx_path, mote_path], check=True, stdout=subprocess.DEVNULL)
            x = np.random.default_rng(0).standard_normal(layer["x"]).astype(np.float32)
            for threads in (int(t) for t in args.threads.split(",")):
                mote_session = runtimes.Mote(libmote, mote_path, threads)
                ort_session = runtimes.OnnxRuntime(onnx_path, threads)
                ref = ort_session.run(x)
                diff = float(np.abs(mote_session.run(x) - ref).max() / max(float(np.abs(ref).max()), 1e-12))
                mote_session.close()
                if diff > AGREEMENT:
                    disagreements.append(f"{name} at {threads} thread(s): {diff:.1e}")
                mote_rounds, ort_rounds = [], []
                for _ in range(args.rounds):
                    mote_rounds.append(mote_bench_p50(mote_bench, mote_path, threads, args.runs, args.warmup))
                    ort_rounds.append(ort_p50(ort_session, x, args.runs, args.warmup))
                ort_session.close()
                mote, ort = statistics.median(mote_rounds), statistics.median(ort_rounds)
                print(f"{name:<22} {threads:>7} {mote:>9.3f} {ort:>15.3f} {mote / ort:>9.2f} {diff:>10.1e}",
                      flush=True)
    if disagreements:
        print("Mote differs from onnxruntime by more than", AGREEMENT, "on:", "; ".join(disagreements))
        if args.require_agreement:
            sys.exit(1)


if __name__ == "__main__":
    main()
