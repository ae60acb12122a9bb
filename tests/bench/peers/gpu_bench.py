#!/usr/bin/env python3
"""Mote's Vulkan backend against ncnn's Vulkan path on the same device, side
by side (pyenv python3 here; on the device machine its python3, with the
ncnn wheel carried: tests/bench/gpu/device_job.sh).

  1. export the models to ONNX (tests/models/onnx/export_models.py, random
     weights from a fixed seed) with --torch-python, or take them from
     --onnx-dir (NAME.onnx; tests/bench/gpu/weightless_onnx.py fills carried
     models there);
  2. convert them with mote-convert and pnnx;
  3. run Mote (Vulkan), ncnn (Vulkan, fp32: its fp16 and bf16 storage and
     arithmetic off) and ncnn (Vulkan with its defaults: fp16 where the
     device has it) on the same random input, and compare each output with
     onnxruntime's on the CPU (max|diff| / max|ort|);
  4. time them interleaved in rounds, as peer_bench.py does on the CPU
     (every run includes the input's upload and the output's download);
  5. with --gemm, time an N x N x N fp32 MatMul of two graph inputs on
     Mote's Vulkan backend by the GPU's timestamps (mote-bench --per-op),
     as GFLOP/s.

Prints one table (medians, 10th-90th percentiles, ncnn's median over
Mote's) and writes --json.

  gpu_bench.py --build build --models mobilenet_v2 --rounds 3 --work /tmp/g
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtimes  # noqa: E402
from peer_bench import (add_build_arguments, convert, export_models, log, relative_error,  # noqa: E402
                        summarize, time_interleaved)

MODELS = ["mobilenet_v2", "resnet18", "resnet50"]
RUNTIMES = ["Mote", "ncnn fp32", "ncnn default"]


def onnx_dir_manifest(names, folder):
    """export_models' manifest for ready-made NAME.onnx files in `folder`."""
    import onnx
    manifest = {}
    for name in names:
        path = os.path.join(folder, name + ".onnx")
        graph = onnx.load(path, load_external_data=False).graph
        dims = graph.input[0].type.tensor_type.shape.dim
        manifest[name] = {"shape": [d.dim_value for d in dims], "files": {"static": os.path.abspath(path)}}
    return manifest


def open_runtime(which, files, libmote):
    if which == "Mote":
        return runtimes.Mote(libmote, files["Mote"], 1, backend="vulkan")
    return runtimes.Ncnn(*files["ncnn"], 1, vulkan=True, fp32=which == "ncnn fp32")


def bench_model(name, info, args, work, libmote):
    shape = info["shape"]
    onnx_path = os.path.join(work, info["files"]["static"])
    files, failures = convert(name, onnx_path, shape, args.mote_convert, work, which=("Mote", "ncnn"))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    record = {"model": name, "shape": shape, "errors": {}, "left_out": {}, "prepare_ms": {}}
    reference = runtimes.OnnxRuntime(onnx_path, 4)
    expected = reference.run(x)
    reference.close()
    sessions = {}
    for which in RUNTIMES:
        needs = "Mote" if which == "Mote" else "ncnn"
        if needs in failures:
            record["left_out"][which] = failures[needs]
            continue
        try:
            start = time.perf_counter()
            sessions[which] = open_runtime(which, files, libmote)
            record["prepare_ms"][which] = (time.perf_counter() - start) * 1e3
            record["errors"][which] = relative_error(sessions[which].run(x), expected)
        except Exception as e:  # the runtimes' own exception types vary
            record["left_out"][which] = f"failed: {e}"
            if which in sessions:
                sessions.pop(which).close()
    samples, _ = time_interleaved(sessions, x, args.rounds, args.runs, args.warmup, args.settle_ms)
    record["times"] = {which: summarize(ms) for which, ms in samples.items()}
    for s in sessions.values():
        s.close()
    row = "  ".join(f"{which} {v['median']:.2f}" for which, v in record["times"].items())
    log(f"  {name}: {row} ms")
    for which, reason in record["left_out"].items():
        log(f"  {name}: {which} left out: {reason.splitlines()[0]}")
    return record


def write_matmul_model(n, path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "gemm",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n]),
                               helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def gemm_gflops(n, args, work):
    """Mote's Vulkan MatMul of two n x n inputs: (ms, GFLOP/s) by the GPU's
    timestamps, the mean of --gemm-repeat runs."""
    onnx_path = os.path.join(work, f"matmul{n}.onnx")
    mote_path = os.path.join(work, f"matmul{n}.mote")
    write_matmul_model(n, onnx_path)
    subprocess.run([args.mote_convert, onnx_path, mote_path], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([args.mote_bench, mote_path, "--backend", "vulkan", "--per-op", "--repeat",
                          str(args.gemm_repeat), "--warmup", "2"], capture_output=True, text=True, check=True).stdout
    ops, _ = runtimes.mote_bench_ops(out)
    on_gpu = [ms for ms, device, op in ops if device == "vulkan" and op == "MatMul"]
    if not on_gpu:
        raise runtimes.PeerError(f"no GPU MatMul line in mote-bench's per-op output:\n{out}")
    return on_gpu[0], 2.0 * n ** 3 / (on_gpu[0] * 1e6)


def table(results, gemms, meta):
    lines = [f"Vulkan device: {meta['device']}; ncnn {meta['ncnn']}, Mote {meta['mote']}; "
             f"{meta['rounds']} rounds x {meta['runs']} runs, interleaved", "",
             "| model | Mote ms (p10-p90) | ncnn fp32 ms | ncnn default ms | ncnn fp32 / Mote | ncnn default / Mote "
             "| max rel. diff Mote, ncnn fp32, ncnn default |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in results:
        t = r["times"]

        def cell(which):
            v = t.get(which)
            return f"{v['median']:.2f} ({v['p10']:.2f}-{v['p90']:.2f})" if v else "-"

        def ratio(which):
            return f"{t[which]['median'] / t['Mote']['median']:.2f}" if which in t and "Mote" in t else "-"

        errs = ", ".join(f"{r['errors'][w]:.1e}" if w in r["errors"] else "-" for w in RUNTIMES)
        lines.append(f"| {r['model']} | {cell('Mote')} | {cell('ncnn fp32')} | {cell('ncnn default')} | "
                     f"{ratio('ncnn fp32')} | {ratio('ncnn default')} | {errs} |")
    for r in results:
        for which, why in r["left_out"].items():
            lines.append(f"\n{r['model']}: {which} left out: {why.splitlines()[0]}")
    if gemms:
        lines += ["", "| fp32 MatMul n x n x n | Mote Vulkan ms (GPU timestamps) | GFLOP/s |", "|---:|---:|---:|"]
        lines += [f"| {n} | {ms:.3f} | {gf:.0f} |" for n, ms, gf in gemms]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(parser)
    parser.add_argument("--mote-bench", help="mote-bench for --gemm (default: BUILD/sdk/tools/mote-bench)")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated (export_models.py's names); "
                                                                   "'' for none")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per runtime in each round")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per runtime before the rounds")
    parser.add_argument("--settle-ms", type=float, default=20, help="untimed runs before each runtime's timed runs")
    parser.add_argument("--gemm", default="", help="MatMul sizes n, comma-separated (e.g. 1024,4096)")
    parser.add_argument("--gemm-repeat", type=int, default=10, help="timed MatMul runs per size")
    parser.add_argument("--work", help="folder for exported and converted models (default: a temporary one)")
    parser.add_argument("--onnx-dir", help="take NAME.onnx from here instead of exporting")
    parser.add_argument("--torch-python", default="/usr/bin/python3", help="a Python with torch and torchvision")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--require-all", action="store_true",
                        help="exit 1 when a runtime is left out or Mote differs from onnxruntime by more than 1e-4")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    libmote = args.libmote or os.path.join(args.build, "runtime", "libmote.so")
    args.mote_convert = args.mote_convert or os.path.join(args.build, "converters", "mote-convert")
    args.mote_bench = args.mote_bench or os.path.join(args.build, "sdk", "tools", "mote-bench")
    for path in (libmote, args.mote_convert) + ((args.mote_bench,) if args.gemm else ()):
        if not os.path.exists(path):
            sys.exit(f"gpu_bench.py: {path} not found")
    import ncnn
    if ncnn.get_gpu_count() < 1:
        sys.exit("gpu_bench.py: ncnn finds no Vulkan device")

    work = args.work or tempfile.mkdtemp(prefix="mote_gpu_bench_")
    os.makedirs(work, exist_ok=True)
    os.environ["TMPDIR"] = work  # onnxruntime's session file and converter scratch
    results, gemms, gemm_failures = [], [], []
    try:
        if args.onnx_dir:
            manifest = onnx_dir_manifest(names, args.onnx_dir)
        else:
            manifest = export_models(names, work, args.torch_python) if names else {}
        for name in names:
            log(f"{name} {manifest[name]['shape']}")
            results.append(bench_model(name, manifest[name], args, work, libmote))
        for n in (int(v) for v in args.gemm.split(",") if v):
            # One size failing (a device limit, a conversion) leaves the others
            # and the models' results.
            try:
                ms, gflops = gemm_gflops(n, args, work)
            except (runtimes.PeerError, subprocess.CalledProcessError) as e:
                gemm_failures.append(f"MatMul {n}^3: {e}")
                log(f"  MatMul {n}^3 failed: {e}")
                continue
            log(f"  MatMul {n}^3: {ms:.3f} ms, {gflops:.0f} GFLOP/s")
            gemms.append((n, ms, gflops))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    meta = {"date": time.strftime("%Y-%m-%d"), "device": ncnn.get_gpu_info(ncnn.get_default_gpu_index()).device_name(),
            "ncnn": ncnn.__version__, "mote": runtimes.Mote.version_of(libmote), "rounds": args.rounds,
            "runs": args.runs}
    print()
    print(table(results, gemms, meta))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "results": results, "gemm": gemms, "gemm_failures": gemm_failures}, f, indent=1)
    if args.require_all:
        problems = [f"{r['model']}: {w} left out" for r in results for w in r["left_out"]] + gemm_failures
        problems += [f"{r['model']}: Mote differs by {r['errors']['Mote']:.1e}" for r in results
                     if r["errors"].get("Mote", 0) > 1e-4]
        if problems:
            sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()
