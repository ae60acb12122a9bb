#!/usr/bin/env python3
"""Real architectures through mote-convert and the CPU runtime, against onnxruntime.

Interpreters. This driver runs with the pip/pyenv `python3` (numpy, onnx,
onnxruntime): the same interpreter mote-convert --check calls for its
onnxruntime side (MOTE_PYTHON is set to this one unless already set). The
PyTorch side, export_models.py, runs as a separate process with
$MOTE_TORCH_PYTHON (default /usr/bin/python3: Debian's python3-torch and
python3-torchvision); the MNIST JPEGs are decoded by decode_mnist.py with the
first of the two interpreters that has PIL, imageio or skimage.

Torch models (export_models.py: mobilenet_v2, mobilenet_v3_small, resnet18,
squeezenet1_1, shufflenet_v2_x1_0, efficientnet_b0, transformer, unet), each
exported with static shapes and with a dynamic batch axis, then:

  static          NAME_static.onnx, batch 1
  dynamic b1      NAME_dynamic.onnx converted as is (dynamic batch in the
                  .mote file), checked on a batch-1 input
  dynamic b3      the same conversion, checked on a batch-3 input
  dynamic pin b3  NAME_dynamic.onnx converted with --input-shape input:3x...
                  (shapes folded), checked on the batch-3 input

Each case is one `mote-convert IN OUT --check --inputs input=X.npy` (inputs:
standard normal, fixed seed). Error measure, per output: max abs error
max|mote - ort| and max rel error = max|mote - ort| / max|ort| (normalised
by the output's largest magnitude, so near-zero elements do not blow it up).
A case passes when every output has max rel error <= 1e-4 (--rtol) and
--check agrees: it is given --rtol 0 --atol 1e-4 * max|ort|, which is the
same criterion element by element. onnxruntime runs here too, on the same
inputs, to know max|ort|. The conversion time is the one mote-convert
reports (read, import, passes, write; not the check).

MNIST (--models mnist): ../shared/models/mnist-cntk/opt-mnist.onnx,
converted with --check on the first image; then mote-run on each of the four
decoded images (raw pixels 0..255): argmax must be the digit in the file
name and the logits must match reference_logits.json (max rel error, as
above, <= 1e-4).

Exit status: 0 all passed, 1 a failure, 77 (CTest: skipped) when an
interpreter lacks what it needs (torch/torchvision for the torch models;
numpy, onnx, onnxruntime for everything).

Usage:
  check_models.py --convert build/converters/mote-convert --run build/sdk/tools/mote-run \\
      --work build/model_onnx [--models all|NAME,NAME,...|mnist] [--markdown table.md]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_MODELS = ["mobilenet_v2", "mobilenet_v3_small", "resnet18", "squeezenet1_1", "shufflenet_v2_x1_0",
                "efficientnet_b0", "transformer", "unet"]
REL_TOL = 1e-4
SKIP = 77


def skip(why):
    print(f"check_models.py: {why}; skipped")
    sys.exit(SKIP)


# onnxruntime writes a session file (.ses) into $TMPDIR as it loads: point it
# at a directory of our own, removed when the interpreter exits.
_ORT_TMP = tempfile.TemporaryDirectory(prefix="mote-ort-")
os.environ["TMPDIR"] = _ORT_TMP.name

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
except ImportError as e:
    skip(f"{sys.executable} has no {e.name} (needs numpy, onnx, onnxruntime)")


def python_has(python, modules):
    try:
        return subprocess.run([python, "-c", "import " + ", ".join(modules)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def ort_run(path, feeds):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds)))


CHECK_LINE = re.compile(r"^\s+(ok|FAIL)\s+(\S+)\s+(\S+)\s+max\|diff\| (\S+)\s+max\|diff\|/max\|(?:ort|ref)\| (\S+)(.*)$")
TIME_LINE = re.compile(r"^\s+time: ([0-9.]+) ms")


def last_error(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def convert_and_check(args, onnx_path, mote_path, input_name, input_path, extra, expected):
    """One mote-convert --check run; returns a result row (dict)."""
    scale = {name: float(np.max(np.abs(v))) if v.size else 0.0 for name, v in expected.items()}
    atol = REL_TOL * min(scale.values()) if scale else 0.0
    cmd = [args.convert, onnx_path, mote_path, "--check", "--inputs", f"{input_name}={input_path}", "--rtol", "0",
           "--atol", repr(atol)] + extra
    start = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.time() - start
    row = {"rc": proc.returncode, "wall_s": wall, "convert_ms": None, "abs": None, "rel": None, "error": "",
           "command": " ".join(cmd)}
    abs_err, rel_err, seen = 0.0, 0.0, set()
    for line in proc.stdout.splitlines():
        m = TIME_LINE.match(line)
        if m and row["convert_ms"] is None:
            row["convert_ms"] = float(m.group(1))
        m = CHECK_LINE.match(line)
        if m and m.group(2) in expected:
            name, a = m.group(2), float(m.group(4))
            seen.add(name)
            abs_err = max(abs_err, a)
            rel_err = max(rel_err, a / scale[name] if scale[name] > 0 else (0.0 if a == 0 else float("inf")))
            if m.group(6).strip():
                row["error"] = f"{name}: {m.group(6).strip()}"
    if seen:
        row["abs"], row["rel"] = abs_err, rel_err
    if proc.returncode == 1:
        row["error"] = "conversion failed: " + last_error(proc.stderr)
    elif proc.returncode != 0 and not row["error"] and seen != set(expected):
        row["error"] = last_error(proc.stderr) or f"exit status {proc.returncode}"
    row["pass"] = proc.returncode == 0 and seen == set(expected) and rel_err <= REL_TOL
    if not row["pass"] or args.verbose:
        sys.stdout.write(f"--- {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return row


def check_torch_model(args, name, info, onnx_dir, work):
    shape = info["shape"]
    input_name = info["input"]
    rng = np.random.default_rng(TORCH_MODELS.index(name) + 1)
    batches = {1: rng.standard_normal(shape).astype(np.float32),
               3: rng.standard_normal([3] + shape[1:]).astype(np.float32)}
    inputs = {}
    for b, x in batches.items():
        inputs[b] = os.path.join(work, f"{name}_b{b}.npy")
        np.save(inputs[b], x)
    static = os.path.join(onnx_dir, info["files"]["static"])
    dynamic = os.path.join(onnx_dir, info["files"]["dynamic"])
    pin = "x".join(str(d) for d in [3] + shape[1:])
    cases = [
        ("static", static, 1, []),
        ("dynamic b1", dynamic, 1, []),
        ("dynamic b3", dynamic, 3, []),
        ("dynamic pin b3", dynamic, 3, ["--input-shape", f"{input_name}:{pin}"]),
    ]
    rows = []
    for variant, path, batch, extra in cases:
        expected = ort_run(path, {input_name: batches[batch]})
        mote = os.path.join(work, f"{name}_{variant.replace(' ', '_')}.mote")
        row = convert_and_check(args, path, mote, input_name, inputs[batch], extra, expected)
        row.update(model=name, variant=variant)
        rows.append(row)
        report(row)
    return rows


def check_mnist(args, work):
    """Convert opt-mnist.onnx, run each digit with mote-run; argmax and logits
    against reference_logits.json."""
    src = args.mnist_dir
    model = os.path.join(src, "opt-mnist.onnx")
    if not os.path.exists(model):
        skip(f"no {model}")
    decoder = next((p for p in [sys.executable, args.torch_python]
                    if python_has(p, ["numpy"]) and any(python_has(p, [m]) for m in ["PIL", "imageio", "skimage"])),
                   None)
    if decoder is None:
        skip(f"neither {sys.executable} nor {args.torch_python} can decode JPEG (PIL, imageio or skimage)")
    images = os.path.join(work, "mnist")
    subprocess.run([decoder, os.path.join(HERE, "decode_mnist.py"), src, images], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(src, "reference_logits.json"), encoding="utf-8") as f:
        reference = json.load(f)
    input_name = onnx.load(model, load_external_data=False).graph.input[0].name
    digits = sorted(reference, key=int)

    mote = os.path.join(work, "mnist.mote")
    first = os.path.join(images, f"{digits[0]}.npy")
    expected = ort_run(model, {input_name: np.load(first)})
    row = convert_and_check(args, model, mote, input_name, first, [], expected)
    row.update(model="mnist-cntk", variant=f"--check on {digits[0]}.jpg")
    report(row)
    rows = [row]
    if row["rc"] not in (0, 3) or not os.path.exists(mote):
        return rows, []

    digit_rows = []
    for d in digits:
        x_path = os.path.join(images, f"{d}.npy")
        outdir = os.path.join(work, f"mnist_out_{d}")
        cmd = [args.run, mote, "--input", f"{input_name}={x_path}", "--output-dir", outdir, "--repeat", "0",
               "--warmup", "0"]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        r = {"digit": int(d), "pass": False, "error": ""}
        if proc.returncode != 0:
            r["error"] = f"mote-run failed: {last_error(proc.stderr)}"
            sys.stdout.write(f"--- {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
        else:
            outs = sorted(f for f in os.listdir(outdir) if f.endswith(".npy"))
            logits = np.load(os.path.join(outdir, outs[0])).reshape(-1).astype(np.float64)
            ref = np.array(reference[d]["logits"], dtype=np.float64)
            ours_ort = ort_run(model, {input_name: np.load(x_path)})
            ours_ort = next(iter(ours_ort.values())).reshape(-1).astype(np.float64)
            r.update(argmax=int(np.argmax(logits)), ref_argmax=int(reference[d]["argmax"]),
                     abs=float(np.max(np.abs(logits - ref))), rel=float(np.max(np.abs(logits - ref)) / np.max(np.abs(ref))),
                     ort_rel=float(np.max(np.abs(ours_ort - ref)) / np.max(np.abs(ref))),
                     mote_vs_ort_rel=float(np.max(np.abs(logits - ours_ort)) / np.max(np.abs(ours_ort))),
                     logits=[round(float(v), 3) for v in logits])
            r["pass"] = r["argmax"] == int(d) and r["rel"] <= REL_TOL
        digit_rows.append(r)
        print(f"mnist {d}.jpg: argmax {r.get('argmax')} (label {d}), logits max abs {fmt(r.get('abs'))}, "
              f"max rel {fmt(r.get('rel'))} vs reference_logits.json (onnxruntime on these pixels: "
              f"{fmt(r.get('ort_rel'))}) {'ok' if r['pass'] else 'FAIL'} {r['error']}", flush=True)
    return rows, digit_rows


def fmt(v, spec=".2e"):
    return "-" if v is None else format(v, spec)


def report(row):
    print(f"{row['model']:<20} {row['variant']:<16} max abs {fmt(row['abs'])}  max rel {fmt(row['rel'])}  "
          f"convert {fmt(row['convert_ms'], '.0f')} ms  {'ok' if row['pass'] else 'FAIL'}"
          f"{'  ' + row['error'] if row['error'] else ''}", flush=True)


def markdown(rows, digit_rows):
    out = ["| Model | Variant | Max abs error | Max rel error | Conversion (ms) | Pass |",
           "|---|---|---:|---:|---:|---|"]
    for r in rows:
        note = f" ({r['error']})" if r["error"] and not r["pass"] else ""
        out.append(f"| {r['model']} | {r['variant']} | {fmt(r['abs'])} | {fmt(r['rel'])} | "
                   f"{fmt(r['convert_ms'], '.0f')} | {'yes' if r['pass'] else 'NO' + note} |")
    if digit_rows:
        out += ["", "| Image | Mote argmax | Max abs vs reference_logits.json | Max rel | "
                "onnxruntime (same pixels) max rel | Pass |", "|---|---:|---:|---:|---:|---|"]
        for r in digit_rows:
            out.append(f"| {r['digit']}.jpg | {r.get('argmax', '-')} | {fmt(r.get('abs'))} | {fmt(r.get('rel'))} | "
                       f"{fmt(r.get('ort_rel'))} | {'yes' if r['pass'] else 'NO ' + r['error']} |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--convert", required=True, help="the mote-convert executable")
    parser.add_argument("--run", required=True, help="the mote-run executable")
    parser.add_argument("--work", required=True, help="working directory (exports, inputs, .mote files)")
    parser.add_argument("--models", default="all", help="all, or a comma-separated list of: "
                        + ", ".join(TORCH_MODELS + ["mnist"]))
    parser.add_argument("--torch-python", default=os.environ.get("MOTE_TORCH_PYTHON", "/usr/bin/python3"))
    parser.add_argument("--mnist-dir", default=os.path.normpath(os.path.join(HERE, "../../../../shared/models/mnist-cntk")))
    parser.add_argument("--reuse", action="store_true", help="keep exported .onnx files already in WORK")
    parser.add_argument("--markdown", help="also write the result tables (Markdown) to this file")
    parser.add_argument("--json", help="also write the results (JSON) to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print mote-convert's output for every case")
    args = parser.parse_args()

    names = TORCH_MODELS + ["mnist"] if args.models == "all" else args.models.split(",")
    for n in names:
        if n not in TORCH_MODELS and n != "mnist":
            sys.exit(f"check_models.py: unknown model '{n}'")
    torch_names = [n for n in names if n in TORCH_MODELS]
    if torch_names and not python_has(args.torch_python, ["torch", "torchvision"]):
        skip(f"{args.torch_python} has no torch/torchvision (Debian: apt-get install python3-torch python3-torchvision)")
    for tool in (args.convert, args.run):
        if not os.access(tool, os.X_OK):
            sys.exit(f"check_models.py: {tool} is not an executable")
    os.environ.setdefault("MOTE_PYTHON", sys.executable)
    os.makedirs(args.work, exist_ok=True)
    start = time.time()

    rows, digit_rows = [], []
    if torch_names:
        onnx_dir = os.path.join(args.work, "onnx")
        manifest_path = os.path.join(onnx_dir, "manifest.json")
        manifest = {}
        if args.reuse and os.path.exists(manifest_path):
            with open(manifest_path, encoding="utf-8") as f:
                manifest = json.load(f)
        todo = [n for n in torch_names if n not in manifest]
        if todo:
            t0 = time.time()
            subprocess.run([args.torch_python, os.path.join(HERE, "export_models.py"), onnx_dir, "--models",
                            ",".join(todo)], check=True)
            with open(manifest_path, encoding="utf-8") as f:
                exported = json.load(f)
            manifest.update(exported)
            with open(manifest_path, "w", encoding="utf-8") as f:
                json.dump(manifest, f, indent=1)
            print(f"export: {time.time() - t0:.1f} s", flush=True)
        for n in torch_names:
            rows += check_torch_model(args, n, manifest[n], onnx_dir, args.work)
    if "mnist" in names:
        r, digit_rows = check_mnist(args, args.work)
        rows += r

    table = markdown(rows, digit_rows)
    print("\n" + table + f"\ntotal {time.time() - start:.1f} s")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"cases": rows, "mnist": digit_rows}, f, indent=1)
    failed = [f"{r['model']} {r['variant']}" for r in rows if not r["pass"]]
    failed += [f"mnist {r['digit']}.jpg" for r in digit_rows if not r["pass"]]
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
