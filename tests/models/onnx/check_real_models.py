"""Multi-input real models through mote-convert and mote-run, on the CPU and
Vulkan backends, against onnxruntime (docs/models.md, "Recurrent, detection
and vision-transformer models").

Runs with the pip/pyenv `python3` (numpy, onnxruntime); the models are
exported by export_real_models.py with $MOTE_TORCH_PYTHON (default
/usr/bin/python3, Debian's python3-torch and python3-torchvision).

  kws_lstm  a stream of 5 chunks of 10 MFCC frames: each chunk's hn and cn
            are the next chunk's h0 and c0, Mote feeding back its own state
            and onnxruntime its own; every chunk's three outputs compared.
  vit_tiny  one 1x3x32x32 image.
  ssdlite   one 3x320x320 image with values in [0, 1); the number of
            detections must match and boxes, scores and labels agree.

Inputs are seeded. Per output: max abs = max|mote - ort|, max rel = max abs /
max|ort|; a case passes when every output of every step has max rel <= 1e-4
and the same shape. With MOTE_REQUIRE_VULKAN=1 (CI) a Vulkan case fails when
its session fell back to the CPU backend, which would otherwise pass as
Vulkan. (A small model may still keep every op on the CPU: runs of ops
smaller than SessionOptions::min_gpu_island_elements stay there.)

Exit status: 0 all passed, 1 a failure, 77 (CTest: skipped) when an
interpreter lacks what it needs.

Usage:
  check_real_models.py --convert build/converters/mote-convert --run build/sdk/tools/mote-run \\
      --work DIR [--models kws_lstm,vit_tiny,ssdlite] [--backends cpu,vulkan] [--markdown FILE]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["kws_lstm", "vit_tiny", "ssdlite"]
REL_TOL = 1e-4
SKIP = 77
STREAM_CHUNKS = 5

# onnxruntime writes a session file (.ses) into $TMPDIR as it loads: point it
# at a directory of our own, removed when the interpreter exits.
_ORT_TMP = tempfile.TemporaryDirectory(prefix="mote-ort-")
os.environ["TMPDIR"] = _ORT_TMP.name

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:
    print(f"check_real_models.py: {sys.executable} has no {e.name}; skipped")
    sys.exit(SKIP)

PLACEMENT = re.compile(r"(\d+) ops on the GPU, (\d+) on the CPU")
ON_VULKAN = re.compile(r"^backend\s+vulkan on ", re.M)


def ort_session(path):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def mote_run(args, mote_path, backend, feeds, outdir):
    """Runs the model once with mote-run; returns (outputs by name, ops on the GPU or
    None when the run fell back to the CPU backend)."""
    os.makedirs(outdir, exist_ok=True)
    cmd = [args.run, mote_path, "--backend", backend, "--output-dir", outdir, "--repeat", "0", "--warmup", "0"]
    for name, value in feeds.items():
        path = os.path.join(outdir, f"in_{name}.npy")
        np.save(path, value)
        cmd += ["--input", f"{name}={path}"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    m = PLACEMENT.search(proc.stdout)
    gpu_ops = int(m.group(1)) if m and ON_VULKAN.search(proc.stdout) else None
    outputs = {}
    for f in os.listdir(outdir):
        if f.endswith(".npy") and not f.startswith("in_"):
            outputs[f[:-4]] = np.load(os.path.join(outdir, f))
    return outputs, gpu_ops


def compare(expected, got):
    """Worst max abs and max rel over the outputs, and the first problem."""
    worst_abs, worst_rel, problem = 0.0, 0.0, ""
    for name, want in expected.items():
        have = got.get(name.replace("/", "_").replace(":", "_"))
        if have is None:
            return worst_abs, float("inf"), f"{name}: no output"
        if have.shape != want.shape:
            return worst_abs, float("inf"), f"{name}: shape {list(have.shape)} vs onnxruntime's {list(want.shape)}"
        if want.size == 0:
            continue
        diff = float(np.max(np.abs(have.astype(np.float64) - want.astype(np.float64))))
        scale = float(np.max(np.abs(want)))
        rel = diff / scale if scale > 0 else (0.0 if diff == 0 else float("inf"))
        worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
        if rel > REL_TOL and not problem:
            problem = f"{name}: max rel {rel:.2e}"
    return worst_abs, worst_rel, problem


def steps_for(name, manifest, rng):
    """The list of feeds to run: one step, or kws_lstm's stream (state filled in as it runs)."""
    inputs = manifest[name]["inputs"]
    if name == "ssdlite":
        return [{"input": rng.random(inputs["input"], dtype=np.float32)}]
    if name == "kws_lstm":
        return [{"input": rng.standard_normal(inputs["input"]).astype(np.float32)} for _ in range(STREAM_CHUNKS)]
    return [{k: rng.standard_normal(shape).astype(np.float32) for k, shape in inputs.items()}]


def check_model(args, name, manifest, work):
    onnx_path = os.path.join(work, manifest[name]["file"])
    mote_path = os.path.join(work, f"{name}.mote")
    proc = subprocess.run([args.convert, onnx_path, mote_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        row = {"model": name, "backend": "-", "pass": False, "error": "conversion failed: " + proc.stderr.strip()}
        report(row)
        return [row]
    session = ort_session(onnx_path)
    out_names = [o.name for o in session.get_outputs()]
    rows = []
    for backend in args.backends.split(","):
        rng = np.random.default_rng(MODELS.index(name) + 1)
        steps = steps_for(name, manifest, rng)
        row = {"model": name, "backend": backend, "steps": len(steps), "abs": 0.0, "rel": 0.0, "gpu_ops": 0,
               "error": "", "detections": None}
        ort_state, mote_state = {}, {}
        try:
            for k, feeds in enumerate(steps):
                if name == "kws_lstm":
                    zeros = np.zeros(manifest[name]["inputs"]["h0"], np.float32)
                    ort_feeds = dict(feeds, h0=ort_state.get("hn", zeros), c0=ort_state.get("cn", zeros))
                    mote_feeds = dict(feeds, h0=mote_state.get("hn", zeros), c0=mote_state.get("cn", zeros))
                else:
                    ort_feeds = mote_feeds = feeds
                expected = dict(zip(out_names, session.run(out_names, ort_feeds)))
                got, gpu_ops = mote_run(args, mote_path, backend, mote_feeds,
                                            os.path.join(work, f"{name}_{backend}_{k}"))
                if gpu_ops is None:
                    row["on_cpu_backend"] = True
                else:
                    row["gpu_ops"] = max(row["gpu_ops"], gpu_ops)
                a, r, problem = compare(expected, got)
                row["abs"], row["rel"] = max(row["abs"], a), max(row["rel"], r)
                if problem and not row["error"]:
                    row["error"] = f"step {k}: {problem}"
                if name == "ssdlite":
                    row["detections"] = int(expected["scores"].shape[0])
                ort_state, mote_state = expected, got
        except RuntimeError as e:
            row["error"] = str(e).strip().splitlines()[-1]
            row["rel"] = float("inf")
        # Small models may keep every op on the CPU (min_gpu_island_elements);
        # what must not happen in CI is the whole session falling back.
        if backend == "vulkan" and os.environ.get("MOTE_REQUIRE_VULKAN") == "1" and row.get("on_cpu_backend"):
            row["error"] = row["error"] or "the Vulkan session fell back to the CPU (MOTE_REQUIRE_VULKAN=1)"
        row["pass"] = not row["error"] and row["rel"] <= REL_TOL
        report(row)
        rows.append(row)
    return rows


def report(row):
    status = "ok  " if row["pass"] else "FAIL"
    if row["backend"] == "-":
        print(f"{status} {row['model']:<10} {row['error']}", flush=True)
        return
    print(f"{status} {row['model']:<10} {row['backend']:<7} steps {row['steps']}  max abs {row['abs']:.2e}  "
          f"max rel {row['rel']:.2e}  gpu ops {row['gpu_ops']}" + (f"  {row['error']}" if row["error"] else ""),
          flush=True)


def markdown(rows, manifest):
    lines = ["| Model | Backend | Steps | Ops on the GPU | Max abs error | Max rel error | Result |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["backend"] == "-":
            lines.append(f"| {r['model']} | - | - | - | - | - | {r['error']} |")
            continue
        extra = f" ({r['detections']} detections)" if r.get("detections") is not None else ""
        lines.append(f"| {r['model']} | {r['backend']} | {r['steps']} | {r['gpu_ops']} | {r['abs']:.2e} | "
                     f"{r['rel']:.2e} | {'pass' if r['pass'] else 'FAIL: ' + r['error']}{extra} |")
    versions = next(iter(manifest.values()), {})
    lines.append("")
    lines.append(f"torch {versions.get('torch', '?')}, torchvision {versions.get('torchvision', '?')}, "
                 f"onnxruntime {ort.__version__}.")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--convert", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--backends", default="cpu,vulkan")
    parser.add_argument("--torch-python", default=os.environ.get("MOTE_TORCH_PYTHON", "/usr/bin/python3"))
    parser.add_argument("--markdown")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")
    for m in models:
        if m not in MODELS:
            sys.exit(f"check_real_models.py: unknown model '{m}' (known: {', '.join(MODELS)})")
    probe = subprocess.run([args.torch_python, "-c", "import torch, torchvision"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        print(f"check_real_models.py: {args.torch_python} has no torch/torchvision; skipped")
        sys.exit(SKIP)
    export = subprocess.run([args.torch_python, os.path.join(HERE, "export_real_models.py"), args.work, "--models",
                             ",".join(models)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if export.returncode != 0:
        sys.exit(f"check_real_models.py: export failed:\n{export.stderr}")
    with open(os.path.join(args.work, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    rows = []
    for name in models:
        rows += check_model(args, name, manifest, args.work)
    table = markdown(rows, manifest)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    failed = [r for r in rows if not r["pass"]]
    print(f"{len(rows) - len(failed)} of {len(rows)} cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
