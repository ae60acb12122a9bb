#!/usr/bin/env python3
"""Runs an ONNX model with onnxruntime: the reference side of mote-convert --check.

mote-convert writes the inputs as .npy files and a manifest, one tab-separated
line per tensor:

    input<TAB>NAME<TAB>FILE.npy
    output<TAB>NAME<TAB>FILE.npy

This script feeds the inputs to onnxruntime (CPU) and saves each listed output
to its file. Exit status 0 on success; errors go to stderr.

Usage: onnx_reference.py MODEL.onnx MANIFEST
"""
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model_path, manifest_path = sys.argv[1], sys.argv[2]
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        sys.exit(f"onnx_reference.py: {e}; install with: python3 -m pip install numpy onnxruntime")

    feeds, outputs = {}, []
    with open(manifest_path, encoding="utf-8") as f:
        for line in f:
            kind, name, path = line.rstrip("\n").split("\t")
            if kind == "input":
                feeds[name] = np.load(path)
            else:
                outputs.append((name, path))

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    results = session.run([name for name, _ in outputs], feeds)
    for (name, path), value in zip(outputs, results):
        # np.asarray, not np.ascontiguousarray: the latter turns a scalar into
        # shape [1] (it returns at least one dimension).
        np.save(path, np.asarray(value))


if __name__ == "__main__":
    main()
