#!/usr/bin/env python3
"""Runs a source model in its own runtime: the reference side of
mote-convert --check. An ONNX model runs in onnxruntime (CPU), a TFLite model
(told apart by its "TFL3" identifier) in LiteRT's interpreter.

mote-convert writes the inputs as .npy files and a manifest, one tab-separated
line per tensor:

    input<TAB>NAME<TAB>FILE.npy
    output<TAB>NAME<TAB>FILE.npy

This script feeds the inputs to the runtime and saves each listed output to
its file. Errors go to stderr, and the exit status says which step failed
(mote-convert words its message from it):

    0  done
    3  numpy or the runtime (onnxruntime, ai_edge_litert) cannot be imported
    4  the runtime cannot load the model, or it lacks an input or output the
       manifest names
    5  the runtime failed while running it

Usage: reference_run.py MODEL MANIFEST [--unoptimized]

--unoptimized runs onnxruntime with its graph optimisations off: each
operator as ONNX defines it (its fused int8 kernels, which replace a QDQ
model's DequantizeLinear -> op -> QuantizeLinear chains, round differently).
"""
import sys


def fail(status, message):
    print(f"reference_run.py: {message}", file=sys.stderr)
    sys.exit(status)


def check_names(what, names, known):
    for name in names:
        if name not in known:
            fail(4, f"the model has no {what} named {name!r}; its {what}s are {sorted(known)}")


def run_onnx(model_path, feeds, output_names, unoptimized=False):
    try:
        import onnxruntime as ort
    except ImportError as e:
        fail(3, f"{e}; install with: python3 -m pip install numpy onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if unoptimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types
        fail(4, f"onnxruntime cannot load {model_path}: {e}")
    check_names("input", feeds, [k.name for k in session.get_inputs()])
    check_names("output", output_names, [k.name for k in session.get_outputs()])
    try:
        return session.run(output_names, feeds)
    except Exception as e:
        fail(5, f"onnxruntime failed while running {model_path}: {e}")


def run_tflite(model_path, feeds, output_names):
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError as e:
        fail(3, f"{e}; install with: python3 -m pip install numpy ai-edge-litert")
    try:
        interp = Interpreter(model_path=model_path)
        interp.allocate_tensors()
    except Exception as e:  # LiteRT raises RuntimeError and ValueError
        fail(4, f"LiteRT cannot load {model_path}: {e}")
    inputs = {d["name"]: d for d in interp.get_input_details()}
    outputs = {d["name"]: d for d in interp.get_output_details()}
    check_names("input", feeds, inputs)
    check_names("output", output_names, outputs)
    try:
        for name, value in feeds.items():
            interp.set_tensor(inputs[name]["index"], value.astype(inputs[name]["dtype"], copy=False))
        interp.invoke()
    except Exception as e:
        fail(5, f"LiteRT failed while running {model_path}: {e}")
    return [interp.get_tensor(outputs[name]["index"]) for name in output_names]


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--unoptimized"):
        sys.exit(__doc__)
    model_path, manifest_path = sys.argv[1], sys.argv[2]
    unoptimized = len(sys.argv) == 4
    try:
        import numpy as np
    except ImportError as e:
        fail(3, f"{e}; install with: python3 -m pip install numpy")

    feeds, outputs = {}, []
    with open(manifest_path, encoding="utf-8") as f:
        for line in f:
            kind, name, path = line.rstrip("\n").split("\t")
            if kind == "input":
                feeds[name] = np.load(path)
            else:
                outputs.append((name, path))

    with open(model_path, "rb") as f:
        is_tflite = f.read(8)[4:8] == b"TFL3"
    names = [name for name, _ in outputs]
    results = run_tflite(model_path, feeds, names) if is_tflite else run_onnx(model_path, feeds, names, unoptimized)
    for (name, path), value in zip(outputs, results):
        # np.asarray, not np.ascontiguousarray: the latter turns a scalar into
        # shape [1] (it returns at least one dimension).
        np.save(path, np.asarray(value))


if __name__ == "__main__":
    main()
