#!/usr/bin/env python3
"""CTest smoke test of op_compare.py (pyenv python3: onnx, onnxruntime).

Builds a two-node ONNX model (Conv, then Relu, which onnxruntime fuses into
an NCHWc convolution named after the Relu's output tensor), converts it with
mote-convert, runs op_compare.py on it and checks that both runtimes' times
land on the Conv's row: the name mapping is what can silently break when
onnxruntime renames its nodes. Timings are not checked.

  op_compare_smoke.py --mote-convert build/converters/mote-convert --mote-bench build/sdk/tools/mote-bench
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def write_model(path):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((32, 16, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(32).astype(np.float32), "b")
    conv = helper.make_node("Conv", ["x", "w", "b"], ["conv_out"], name="the_conv", pads=[1, 1, 1, 1])
    relu = helper.make_node("Relu", ["conv_out"], ["y"], name="the_relu")
    graph = helper.make_graph([conv, relu], "smoke",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 28, 28])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 28, 28])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mote-convert", required=True)
    parser.add_argument("--mote-bench", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="op_compare_smoke_") as folder:
        onnx_path = os.path.join(folder, "smoke.onnx")
        mote_path = os.path.join(folder, "smoke.mote")
        write_model(onnx_path)
        subprocess.run([args.mote_convert, onnx_path, mote_path], check=True, stdout=subprocess.DEVNULL)
        done = subprocess.run([sys.executable, os.path.join(HERE, "op_compare.py"), "--mote-bench", args.mote_bench,
                               "--onnx", onnx_path, "--mote", mote_path, "--repeat", "3", "--warmup", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout)
    if done.returncode != 0:
        sys.exit("op_compare_smoke: op_compare.py failed")
    row = re.search(r"^\s*([0-9.]+)\s+([0-9.]+)\s+[-+][0-9.]+\s+Conv 'the_conv'$", done.stdout, re.MULTILINE)
    if not row:
        sys.exit("op_compare_smoke: no row for the Conv node 'the_conv'")
    mote_ms, ort_ms = float(row.group(1)), float(row.group(2))
    if mote_ms <= 0.0 or ort_ms <= 0.0:
        sys.exit(f"op_compare_smoke: the Conv's row lacks a runtime's time (Mote {mote_ms}, onnxruntime {ort_ms})")
    print("op_compare_smoke: both runtimes' times are on the Conv's row")


if __name__ == "__main__":
    main()
