#!/usr/bin/env python3
"""mote-convert as a user meets it: names kept through conversion, --check on
models with dynamic dimensions, the check's per-output figures, and which step
a failed check blames. Each case builds its ONNX model with onnx.helper,
runs the real binaries and asserts on their output and exit status.

Usage: check_messages.py --convert BIN --info BIN --run BIN

Runs with the pip python3 (numpy, onnx, onnxruntime); exit 77 (CTest: skipped)
when they are missing. Every file goes to a temporary directory that is
removed at the end.
"""
import argparse
import os
import subprocess
import sys
import tempfile

SKIP = 77
# onnxruntime writes a session file (.ses) into $TMPDIR as it loads: point it
# at a directory of our own, removed when the interpreter exits.
_ORT_TMP = tempfile.TemporaryDirectory(prefix="mote-ort-")
os.environ["TMPDIR"] = _ORT_TMP.name

try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401  (the check's reference needs it)
    from onnx import TensorProto, helper
except ImportError as e:
    print(f"check_messages: {e}; skipped")
    sys.exit(SKIP)

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


class Failure(Exception):
    pass


def run(cmd, env=None):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))
    return proc.returncode, proc.stdout, proc.stderr


def expect(cond, what, out="", err=""):
    if not cond:
        raise Failure(f"{what}\nstdout:\n{out}\nstderr:\n{err}")


def save(graph, path, metadata=None):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for key, value in (metadata or {}).items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, path)
    return path


def pool_model(path, metadata=None):
    """[N, 3, H, W] -> MaxPool 3x2: the reproduction of a check that sized H
    and W as 1 and then failed on a valid model."""
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["image"], ["pooled"], kernel_shape=[3, 2], name="pool")], "g",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, None)])
    return save(graph, path, metadata)


@case
def output_names_survive(a, work):
    # Node 'a' writes tensor 'a'; node 'a_2' writes the graph output 'a_2'.
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["a"], name="a"), helper.make_node("Neg", ["a"], ["a_2"], name="a_2")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("a_2", TensorProto.FLOAT, [2, 3])])
    src = save(graph, os.path.join(work, "clash.onnx"))
    for extra in ([], ["--no-optimize"]):
        out_path = os.path.join(work, "clash.mote")
        code, out, err = run([a.convert, src, out_path, "--check", *extra])
        expect(code == 0, f"mote-convert {extra} exited {code}", out, err)
        expect("  ok   a_2 " in out, "the check compares output 'a_2' under its own name", out, err)
        code, out, err = run([a.info, out_path])
        expect(code == 0, "mote-info failed", out, err)
        expect("source names  kept: 1 input and 1 output named as in the source model, no renames" in out,
               "mote-info reports no renames", out, err)
        expect("\n  a_2 " in out, "mote-info lists output 'a_2'", out, err)


@case
def dynamic_dims_are_named_not_guessed(a, work):
    src = pool_model(os.path.join(work, "dynamic.onnx"))
    out_path = os.path.join(work, "dynamic.mote")
    code, out, err = run([a.convert, src, out_path, "--check"])
    expect(code == 3, f"an unsizable check exits 3, got {code}", out, err)
    line = err.strip()
    for text in ("input 'image' dimension 2 (H)", "input 'image' dimension 3 (W)", "--dim H=SIZE --dim W=SIZE",
                 "--inputs image=FILE.npy"):
        expect(text in line, f"the message names {text!r}", out, err)
    expect("dimension 0" not in line, "N is sized as a batch dimension, not reported", out, err)
    expect(os.path.exists(out_path), "the converted model is written even when the check cannot run", out, err)
    # mote-info shows the dynamic dimensions by their source names.
    code, out, err = run([a.info, out_path])
    expect("source [N, 3, H, W]" in out, "mote-info shows the source's symbolic dimensions", out, err)

    code, out, err = run([a.convert, src, out_path, "--check", "--dim", "H=48", "--dim", "W=40"])
    expect(code == 0, f"--dim sizes the check, exit {code}", out, err)
    for text in ("dimension 0 (N) = 1: a batch dimension", "dimension 2 (H) = 48: as given by --dim H=48",
                 "input 'image': random f32 1x3x48x40", "  ok   pooled "):
        expect(text in out, f"the check reports {text!r}", out, err)

    x = np.random.default_rng(1).standard_normal((2, 3, 9, 7)).astype(np.float32)
    np.save(os.path.join(work, "image.npy"), x)
    code, out, err = run([a.convert, src, out_path, "--check", "--inputs", f"image={work}/image.npy"])
    expect(code == 0, f"a real input sizes the check, exit {code}", out, err)
    expect("2x3x7x6" in out, "the output has the real input's size", out, err)


@case
def exporter_metadata_sizes_images(a, work):
    src = pool_model(os.path.join(work, "yolo_like.onnx"), {"imgsz": "[32, 24]", "batch": "1"})
    code, out, err = run([a.convert, src, os.path.join(work, "yolo_like.mote"), "--check"])
    expect(code == 0, f"imgsz metadata sizes the check, exit {code}", out, err)
    expect("dimension 2 (H) = 32: the exporter's imgsz metadata" in out, "the check says where H came from", out, err)
    expect("1x3x32x24" in out, "the input is 1x3x32x24", out, err)


@case
def relative_error_is_per_output(a, work):
    """The check's relative figure is max|mote - ref| / max|ref|, computed
    here from mote-run's and onnxruntime's outputs on the same input."""
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((16, 8)) * 100).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor(name="w", data_type=TensorProto.FLOAT, dims=w.shape, vals=w.flatten())])
    src = save(graph, os.path.join(work, "mm.onnx"))
    mote = os.path.join(work, "mm16.mote")
    x = rng.standard_normal((4, 16)).astype(np.float32)
    np.save(os.path.join(work, "x.npy"), x)
    # f16 weights: small differences against values in the hundreds (an
    # absolute tolerance to match).
    code, out, err = run([a.convert, src, mote, "--fp16", "--check", "--inputs", f"x={work}/x.npy", "--atol", "1"])
    expect(code == 0, f"the f16 conversion passes its check, exit {code}", out, err)
    line = next((ln for ln in out.splitlines() if ln.startswith("  ok   y ")), None)
    expect(line is not None, "a result line for y", out, err)
    printed = float(line.split("max|diff|/max|ref|")[1].split()[0])

    code, rout, rerr = run([a.run, mote, "--backend", "cpu", "--input", f"x={work}/x.npy", "--output-dir", work])
    expect(code == 0, "mote-run failed", rout, rerr)
    got = np.load(os.path.join(work, "y.npy")).astype(np.float64)
    ref = onnxruntime.InferenceSession(src, providers=["CPUExecutionProvider"]).run(["y"], {"x": x})[0]
    expected = np.abs(got - ref).max() / np.abs(ref).max()
    expect(expected > 0, "f16 weights change the result a little", out, err)
    expect(abs(printed - expected) <= 0.01 * expected, f"printed {printed}, numpy says {expected:.4g}", out, err)

    code, out, err = run([a.convert, src, mote, "--fp16", "--check", "--inputs", f"x={work}/x.npy", "--rtol", "0",
                          "--atol", "0"])
    expect(code == 3, f"zero tolerance fails, exit {code}", out, err)
    expect("FAIL y " in out and "elements over tolerance; worst at" in out, "the failure says how many and where",
           out, err)
    expect("outputs differ from onnxruntime beyond tolerance" in err, "stderr says what failed", out, err)


@case
def failed_steps_are_named(a, work):
    src = pool_model(os.path.join(work, "steps.onnx"))
    mote = os.path.join(work, "steps.mote")
    dims = ["--dim", "H=8", "--dim", "W=8"]
    # The reference side: onnxruntime cannot be imported.
    fake = os.path.join(work, "fake_modules")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "onnxruntime.py"), "w", encoding="utf-8") as f:
        f.write("raise ImportError('onnxruntime is broken here')\n")
    code, out, err = run([a.convert, src, mote, "--check", *dims], env={"PYTHONPATH": fake})
    expect(code == 3, f"exit {code}", out, err)
    expect("the reference run in onnxruntime failed" in err and "lacks numpy or onnxruntime" in err
           and "onnxruntime is broken here" in err, "the message blames the reference run and quotes it", out, err)
    code, out, err = run([a.convert, src, mote, "--check", *dims], env={"MOTE_PYTHON": "/nonexistent/python"})
    expect(code == 3 and "cannot start '/nonexistent/python'" in err, "a missing interpreter is named", out, err)
    # Mote's side: an input file of the wrong rank.
    np.save(os.path.join(work, "flat.npy"), np.zeros((3, 8), np.float32))
    code, out, err = run([a.convert, src, mote, "--check", "--inputs", f"image={work}/flat.npy"])
    expect(code == 3 and "--check: Mote's run failed on image f32 3x8" in err, "the message blames Mote's run",
           out, err)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--convert", required=True)
    p.add_argument("--info", required=True)
    p.add_argument("--run", required=True)
    args = p.parse_args()
    failed = 0
    for fn in CASES:
        with tempfile.TemporaryDirectory(prefix="mote_check_messages_") as work:
            try:
                fn(args, work)
                print(f"ok    {fn.__name__}")
            except Failure as e:
                failed += 1
                print(f"FAIL  {fn.__name__}: {e}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
