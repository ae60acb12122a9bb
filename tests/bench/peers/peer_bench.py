#!/usr/bin/env python3
"""Mote against onnxruntime, ncnn and MNN on the CPU, side by side.

Runs with the pyenv `python3` (pip's onnxruntime, ncnn, pnnx, MNN, numpy,
matplotlib); the models are exported by Debian's /usr/bin/python3 (torch,
torchvision) through tests/models/onnx/export_models.py. One command, five
steps:

  1. export each model to ONNX (opset 17, batch 1, random weights, fixed seed);
  2. convert it for every runtime: mote-convert, pnnx (ncnn), MNN's converter;
  3. run every runtime on the same random input and compare its output with
     onnxruntime's (max|diff| / max|ort|; the goal is within 1e-4);
  4. time them interleaved: in each round every runtime (in a rotating order)
     does --runs timed runs, so drifts in machine load hit them all alike;
     medians and the 10th-90th percentile spread over all rounds, at each
     thread count; before each runtime's runs, the host's cross-core round
     trip is probed (--probe), so that runs in a VM's slow spells can be told
     apart (the report gives the medians of the runs outside them too);
  5. print the table (and with --docs, write it into docs/benchmarks.md
     between the peer-bench markers, and a bar chart as PNG).

A runtime that cannot convert or run a model is left out of that row, with
the reason printed and written under the table.

  tests/bench/peers/run.sh              (installs the peers, builds, runs all)
  peer_bench.py --build build --models squeezenet1_1 --rounds 2 --runs 3 --work /tmp/x
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import runtimes  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EXPORTER = os.path.join(ROOT, "tests", "models", "onnx", "export_models.py")
MODELS = ["mobilenet_v2", "mobilenet_v3_small", "resnet18", "resnet50", "squeezenet1_1", "shufflenet_v2_x1_0",
          "efficientnet_b0", "transformer_encoder"]
PEERS = ["onnxruntime", "ncnn", "MNN"]
AGREEMENT = 1e-4  # max|diff| / max|ort|: Mote's goal
# A peer further off than this has been wired wrongly (layout, names), not
# merely rounded differently (ncnn's Winograd kernels are ~1e-3 off in fp32).
PEER_SANITY = 1e-2


def log(message):
    print(message, flush=True)


def run_tool(args, what, cwd=None):
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.strip().splitlines()[-8:])
        raise runtimes.PeerError(f"{what} failed (exit {done.returncode}):\n{tail}")
    return done.stdout


def export_models(names, work, torch_python):
    manifest_path = os.path.join(work, "manifest.json")
    start = time.time()
    run_tool([torch_python, EXPORTER, work, "--models", ",".join(names), "--variants", "static"],
             f"exporting {', '.join(names)} with {torch_python}")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    log(f"exported {len(names)} model(s) in {time.time() - start:.0f} s "
        f"(torch {next(iter(manifest.values()))['torch']})")
    return manifest


def convert_mote(name, onnx_path, shape, mote_convert, work):
    mote_path = os.path.join(work, name + ".mote")
    run_tool([mote_convert, onnx_path, mote_path], "mote-convert")
    return mote_path


def convert_ncnn(name, onnx_path, shape, mote_convert, work):
    pnnx = runtimes.pnnx_executable()
    if pnnx is None:
        raise runtimes.PeerError("pnnx is not installed (pip install --no-deps pnnx)")
    # pnnx writes its outputs next to its input, under the input's stem.
    folder = os.path.join(work, "ncnn_" + name)
    os.makedirs(folder, exist_ok=True)
    staged = os.path.join(folder, name + ".onnx")
    shutil.copyfile(onnx_path, staged)
    run_tool([pnnx, staged, "inputshape=[" + ",".join(map(str, shape)) + "]"], "pnnx", cwd=folder)
    return os.path.join(folder, name + ".ncnn.param"), os.path.join(folder, name + ".ncnn.bin")


def convert_mnn(name, onnx_path, shape, mote_convert, work):
    # MNN's converter extension itself, not its `mnnconvert` script: the
    # script's usage logger runs `pip install -U aliyun-log-python-sdk`
    # (which downgrades protobuf below what onnx needs) and uploads the
    # model's details.
    mnn_path = os.path.join(work, name + ".mnn")
    run_tool([sys.executable, "-c", "import sys, _tools; _tools.mnnconvert(sys.argv)", "mnnconvert", "-f", "ONNX",
              "--modelFile", onnx_path, "--MNNModel", mnn_path, "--bizCode", "mote"], "MNN's converter")
    if not os.path.exists(mnn_path):
        raise runtimes.PeerError(f"MNN's converter wrote no {mnn_path}")
    return mnn_path


CONVERTERS = {"Mote": convert_mote, "ncnn": convert_ncnn, "MNN": convert_mnn}


def convert(name, onnx_path, shape, mote_convert, work, which=tuple(CONVERTERS)):
    """Converted files per runtime (onnxruntime's is the ONNX file), or the
    reason a conversion failed."""
    files, failures = {"onnxruntime": onnx_path}, {}
    for runtime in which:
        try:
            files[runtime] = CONVERTERS[runtime](name, onnx_path, shape, mote_convert, work)
        except runtimes.PeerError as e:
            failures[runtime] = str(e)
    return files, failures


def open_runtime(which, files, threads, libmote):
    if which == "Mote":
        return runtimes.Mote(libmote, files["Mote"], threads)
    if which == "onnxruntime":
        return runtimes.OnnxRuntime(files["onnxruntime"], threads)
    if which == "ncnn":
        return runtimes.Ncnn(*files["ncnn"], threads)
    return runtimes.Mnn(files["MNN"], threads)


def relative_error(out, ref):
    out = np.asarray(out, dtype=np.float64).reshape(-1)
    ref = np.asarray(ref, dtype=np.float64).reshape(-1)
    if out.size != ref.size:
        return float("inf")
    return float(np.max(np.abs(out - ref)) / max(np.max(np.abs(ref)), 1e-30))


# Untimed running before each runtime's timed runs in a round
# (time_interleaved), in ms.
DEFAULT_SETTLE_MS = 100


def cross_core_round_trip(probe):
    """The host's cross-core round trip in ns (mote_microbench's
    BM_CrossCoreRoundTrip), or None without a probe. On the 2-vCPU VMs this
    project is measured on it is 90-170 ns most of the time and 300-2,000 ns
    in spells of seconds, when 2-thread runs of every runtime lose much of
    their speed-up (Mote's the most: SqueezeNet 3.2 -> 6.5 ms, onnxruntime's
    3.5 -> 5.3, while 1-thread runs keep their speed)."""
    if not probe:
        return None
    out = subprocess.run([probe, "--benchmark_filter=CrossCoreRoundTrip", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    return float(json.loads(out)["benchmarks"][0]["ns_per_round_trip"])


def time_interleaved(sessions, x, rounds, runs, warmup, settle_ms, probe=None):
    """Per-runtime lists of run times in ms, interleaved round by round, and
    per-runtime lists of the cross-core round trip (ns) probed before each
    run's round (empty without a probe).

    Before each runtime's timed runs in a round it runs untimed for
    settle_ms (at least once): a runtime's idle workers keep spinning on the
    cores for a while after its last run (onnxruntime's and ncnn's by
    default), and the runtime timed next would share its cores with them.
    Measured on MobileNetV3-Small at 2 threads, medians of 12 rounds: all
    four runtimes interleaved without it, Mote 0.88 ms, onnxruntime 0.66,
    ncnn 0.87, MNN 2.38; with 20 ms of it 0.535, 0.583, 0.812, 1.39 (Mote
    in a process of its own: 0.52-0.54, the same minutes). A sleep
    instead was worse than nothing on this VM (Mote alone 0.90 ms after a
    50 ms sleep and one untimed run, 0.55 without): idle cores come back
    slowly. onnxruntime's spinning outlasts 25 ms: ResNet-18 at 2 threads,
    Mote timed after it in 8 rounds, 10.7 ms with 25 ms of settling, 7.26
    with 50 (two rounds still at 11.4), 7.21 with 100, 7.18 with 200, 7.35
    with onnxruntime's spinning off (Mote alone 7.1-7.5): hence
    DEFAULT_SETTLE_MS.
    """
    for s in sessions.values():
        for _ in range(warmup):
            s.run(x)
    samples = {name: [] for name in sessions}
    round_trips = {name: [] for name in sessions}
    order = list(sessions)
    for r in range(rounds):
        rotated = order[r % len(order):] + order[:r % len(order)]
        for name in rotated:
            s = sessions[name]
            ns = cross_core_round_trip(probe)
            if ns is not None:
                round_trips[name] += [ns] * runs
            settle_end = time.perf_counter() + settle_ms / 1e3
            s.run(x)
            while time.perf_counter() < settle_end:
                s.run(x)
            for _ in range(runs):
                t = time.perf_counter()
                s.run(x)
                samples[name].append((time.perf_counter() - t) * 1e3)
    return samples, round_trips


def bench_model(name, info, args, work, libmote):
    """One model: conversions, agreement with onnxruntime, timings per
    thread count. Returns the model's result record."""
    shape = info["shape"]
    onnx_path = os.path.join(work, info["files"]["static"])
    files, failures = convert(name, onnx_path, shape, args.mote_convert, work)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    record = {"model": name, "shape": shape, "threads": {}, "errors": {}, "left_out": dict(failures)}
    for threads in args.threads:
        sessions = {}
        for which in ["Mote"] + PEERS:
            if which in record["left_out"]:
                continue
            try:
                sessions[which] = open_runtime(which, files, threads, libmote)
            except Exception as e:  # a peer's own exception types vary
                record["left_out"][which] = f"loading failed: {e}"
        if "onnxruntime" in sessions:
            reference = sessions["onnxruntime"].run(x)
            for which in list(sessions):
                try:
                    err = relative_error(sessions[which].run(x), reference)
                except Exception as e:
                    record["left_out"][which] = f"run failed: {e}"
                    sessions.pop(which).close()
                    continue
                record["errors"][which] = max(err, record["errors"].get(which, 0.0))
        samples, round_trips = time_interleaved(sessions, x, args.rounds, args.runs, args.warmup, args.settle_ms,
                                                args.probe)
        record["threads"][threads] = {which: summarize(ms, round_trips[which]) for which, ms in samples.items()}
        for s in sessions.values():
            s.close()
        row = "  ".join(f"{which} {v['median']:.2f}" for which, v in record["threads"][threads].items())
        log(f"  {name} @ {threads} thread(s): {row} ms")
    for which, reason in record["left_out"].items():
        log(f"  {name}: {which} left out: {reason.splitlines()[0]}")
    return record


# A probed round trip above this marks a run as taken in one of the host's
# slow spells (cross_core_round_trip).
SLOW_ROUND_TRIP_NS = 250


def summarize(ms, round_trips=()):
    ms = np.asarray(ms)
    stats = {"median": float(np.median(ms)), "p10": float(np.percentile(ms, 10)),
             "p90": float(np.percentile(ms, 90)), "count": int(ms.size)}
    if len(round_trips) == ms.size:
        trips = np.asarray(round_trips)
        fast = ms[trips <= SLOW_ROUND_TRIP_NS]
        stats["round_trip_ns"] = float(np.median(trips))
        stats["fast"] = {"median": float(np.median(fast)) if fast.size else None, "count": int(fast.size)}
    return stats


def versions(libmote):
    found = {"Mote": runtimes.Mote.version_of(libmote)}
    for module, label in (("onnxruntime", "onnxruntime"), ("ncnn", "ncnn"), ("MNN", "MNN")):
        try:
            mod = __import__(module)
            found[label] = mod.version() if label == "MNN" else mod.__version__
        except ImportError:
            found[label] = None
    return found


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} vCPU {model}, {platform.system()} {platform.release()}"


def add_build_arguments(parser):
    """--build, --libmote and --mote-convert: where the benchmarks here find Mote."""
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="Mote build tree with mote-convert and libmote.so (-DMOTE_SHARED=ON)")
    parser.add_argument("--libmote", help="libmote.so to load (default: BUILD/runtime/libmote.so)")
    parser.add_argument("--mote-convert", help="mote-convert to run (default: BUILD/converters/mote-convert)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(parser)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, from: " + ", ".join(MODELS))
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per runtime in each round")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per runtime before the rounds")
    parser.add_argument("--settle-ms", type=float, default=DEFAULT_SETTLE_MS,
                        help="untimed runs, for at least this long, before each runtime's timed runs in a round, "
                             "so that the runtime before it has no workers left spinning")
    parser.add_argument("--probe", help="mote_microbench, run before each runtime's timed runs to record the "
                                        "host's cross-core round trip (default: BUILD/tests/mote_microbench if "
                                        "built; 'none' for no probe)")
    parser.add_argument("--work", help="folder for exported and converted models (default: a temporary one)")
    parser.add_argument("--torch-python", default="/usr/bin/python3", help="a Python with torch and torchvision")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--docs", action="store_true",
                        help="write the table into docs/benchmarks.md and the chart into docs/images/")
    parser.add_argument("--require-all", action="store_true",
                        help="exit 1 when a runtime is left out, Mote differs from onnxruntime by more than "
                             f"{AGREEMENT:g} or a peer by more than {PEER_SANITY:g} (the smoke test)")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    names = args.models.split(",")
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"peer_bench.py: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    libmote = args.libmote or os.path.join(args.build, "runtime", "libmote.so")
    args.mote_convert = args.mote_convert or os.path.join(args.build, "converters", "mote-convert")
    if not os.path.exists(libmote):
        sys.exit(f"peer_bench.py: {libmote} not found: configure the build with -DMOTE_SHARED=ON")
    if not os.path.exists(args.mote_convert):
        sys.exit(f"peer_bench.py: {args.mote_convert} not found: build the mote-convert target")
    if args.probe is None:
        default_probe = os.path.join(args.build, "tests", "mote_microbench")
        args.probe = default_probe if os.path.exists(default_probe) else None
    elif args.probe == "none":
        args.probe = None

    work = args.work or tempfile.mkdtemp(prefix="mote_peer_bench_")
    os.makedirs(work, exist_ok=True)
    # The peers' temporary files (onnxruntime's .ses session file, converter
    # scratch) go into the work folder, which is removed at the end.
    os.environ["TMPDIR"] = work
    try:
        manifest = export_models(names, work, args.torch_python)
        results = []
        for name in names:
            log(f"{name} {manifest[name]['shape']}")
            results.append(bench_model(name, manifest[name], args, work, libmote))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    meta = {"date": time.strftime("%Y-%m-%d"), "machine": machine(), "versions": versions(libmote),
            "torch": next(iter(manifest.values()))["torch"], "rounds": args.rounds, "runs": args.runs,
            "settle_ms": args.settle_ms, "slow_round_trip_ns": SLOW_ROUND_TRIP_NS if args.probe else None,
            "threads": args.threads, "agreement": AGREEMENT}
    table = report.markdown(results, meta)
    print()
    print(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)
    if args.docs:
        report.write_docs(table, results, meta, ROOT)

    if args.require_all:
        problems = [f"{r['model']}: {which} left out ({why.splitlines()[0]})"
                    for r in results for which, why in r["left_out"].items()]
        problems += [f"{r['model']}: {which} differs from onnxruntime by {err:.2e}"
                     for r in results for which, err in r["errors"].items()
                     if err > (AGREEMENT if which == "Mote" else PEER_SANITY)]
        if problems:
            print("\n".join(problems), file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
