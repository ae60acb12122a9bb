#!/usr/bin/env python3
"""Runs an ONNX model with onnxruntime: the reference side of mote-convert --check.

mote-convert writes the inputs as .npy files and a manifest, one tab-separated
line per tensor:

    input<TAB>NAME<TAB>FILE.npy
    output<TAB>NAME<TAB>FILE.npy

This script feeds the inputs to onnxruntime (CPU) and saves each listed output
to its file. Errors go to stderr, and the exit status says which step failed
(mote-convert words its message from it):

    0  done
    3  numpy or onnxruntime cannot be imported
    4  onnxruntime cannot load the model, or it lacks an input or output the
       manifest names
    5  onnxruntime failed while running it

Usage: onnx_reference.py MODEL.onnx MANIFEST
"""
import sys


def fail(status, message):
    print(f"onnx_reference.py: {message}", file=sys.stderr)
    sys.exit(status)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model_path, manifest_path = sys.argv[1], sys.argv[2]
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        fail(3, f"{e}; install with: python3 -m pip install numpy onnxruntime")

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
    try:
        session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types
        fail(4, f"onnxruntime cannot load {model_path}: {e}")
    for what, names, known in (("input", feeds, session.get_inputs()), ("output", [n for n, _ in outputs],
                                                                       session.get_outputs())):
        known_names = [k.name for k in known]
        for name in names:
            if name not in known_names:
                fail(4, f"the model has no {what} named {name!r}; its {what}s are {known_names}")
    try:
        results = session.run([name for name, _ in outputs], feeds)
    except Exception as e:
        fail(5, f"onnxruntime failed while running {model_path}: {e}")
    for (name, path), value in zip(outputs, results):
        # np.asarray, not np.ascontiguousarray: the latter turns a scalar into
        # shape [1] (it returns at least one dimension).
        np.save(path, np.asarray(value))


if __name__ == "__main__":
    main()
