#!/usr/bin/env python3
"""Where a model's time goes, op by op: Mote against onnxruntime's profiler.

Runs with the pyenv `python3` (pip's onnxruntime). Takes an ONNX file and the
.mote that mote-convert made from it (peer_bench.py leaves both in its --work
folder), times every node in both runtimes at the same thread count, and
prints, per ONNX node name, each runtime's time and the difference, largest
first, then the totals per op type. The Mote side is `mote-bench --per-op`
(mean of --repeat runs); the onnxruntime side is its profiler's node times
(mean over the same number of runs, after --warmup). onnxruntime names a
node it rewrote (NCHWc convolutions, fused activations) after the tensor it
writes; such names are mapped back to the ONNX node that makes that tensor,
and from a fused activation to the Conv or Gemm it was fused into, as Mote
names its fused ops.

  op_compare.py --mote-bench build/sdk/tools/mote-bench --onnx /tmp/pbw/resnet18_static.onnx \\
                --mote /tmp/pbw/resnet18.mote --threads 1 --top 20

Profiles are not timings: both profilers add per-node overhead, and one run
of each is noisy. Use this to find which ops to look at, then confirm a
change with peer_bench.py.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# Activations both runtimes fold into the op that feeds them.
FUSABLE = {"Relu", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Sigmoid", "Add"}
MOTE_LINE = re.compile(r"^\s*([0-9.]+) ms\s+[0-9.]+%\s+\S+\s+#\d+\s+(\S+) '(.*)'$")


def mote_times(bench, model, threads, repeat, warmup):
    """{node name: (op type, ms per run)} from mote-bench --per-op."""
    done = subprocess.run([bench, model, "--backend", "cpu", "--threads", str(threads), "--repeat", str(repeat),
                           "--warmup", str(warmup), "--per-op", "--top", "0"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"op_compare: mote-bench failed on {model}:\n{done.stdout}")
    times = {}
    for line in done.stdout.splitlines():
        match = MOTE_LINE.match(line)
        if match:
            times[match.group(3)] = (match.group(2), float(match.group(1)))
    if not times:
        sys.exit(f"op_compare: no per-op lines in mote-bench's output for {model}")
    return times


def ort_times(onnx_path, threads, repeat, warmup, scratch):
    """{node name: (op type, ms per run)} from onnxruntime's profiler, its
    profile written under `scratch`."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(scratch, "ort")
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    feed = {}
    for tensor in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in tensor.shape]
        feed[tensor.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(warmup):
        session.run(None, feed)
    # The profiler records every run; the warm-up runs are told apart by
    # keeping each node's last `repeat` events.
    for _ in range(repeat):
        session.run(None, feed)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    per_node = collections.defaultdict(list)
    kinds = {}
    for event in events:
        if event.get("cat") != "Node" or not event["name"].endswith("_kernel_time"):
            continue
        name = event["name"][: -len("_kernel_time")]
        per_node[name].append(event["dur"] / 1000.0)
        kinds[name] = event.get("args", {}).get("op_name", "?")
    return {name: (kinds[name], sum(d[-repeat:]) / min(repeat, len(d))) for name, d in per_node.items()}


def onnx_names(onnx_path, ort_names):
    """Maps onnxruntime's node names onto the ONNX graph's (see the docstring)."""
    import onnx
    graph = onnx.load(onnx_path, load_external_data=False).graph
    node_names = {node.name for node in graph.node}
    producer = {out: node for node in graph.node for out in node.output}
    mapping = {}
    for name in ort_names:
        tensor = name[: -len("_nchwc")] if name.endswith("_nchwc") else name
        node = producer.get(tensor)
        if name in node_names or node is None:
            mapping[name] = name
            continue
        while node.op_type in FUSABLE and node.input and node.input[0] in producer:
            node = producer[node.input[0]]
        mapping[name] = node.name
    return mapping


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mote-bench", required=True, help="the mote-bench executable")
    parser.add_argument("--onnx", required=True, help="the ONNX model")
    parser.add_argument("--mote", required=True, help="the same model converted by mote-convert")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=30, help="profiled runs per runtime")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--top", type=int, default=25, help="nodes to list (0: all)")
    args = parser.parse_args()

    mote = mote_times(args.mote_bench, args.mote, args.threads, args.repeat, args.warmup)
    # onnxruntime writes a session file (.ses) into the TMPDIR it sees when
    # imported: a folder of ours, removed at the end, as peer_bench.py does.
    with tempfile.TemporaryDirectory(prefix="op_compare_") as scratch:
        os.environ["TMPDIR"] = scratch
        renamed = ort_times(args.onnx, args.threads, args.repeat, args.warmup, scratch)
    ort = {}
    for ort_name, onnx_name in onnx_names(args.onnx, renamed).items():
        kind, ms = renamed[ort_name]
        ort[onnx_name] = (kind, ort.get(onnx_name, (kind, 0.0))[1] + ms)
    rows = []
    for name in set(mote) | set(ort):
        kind = (mote.get(name) or ort.get(name))[0]
        m = mote[name][1] if name in mote else 0.0
        o = ort[name][1] if name in ort else 0.0
        rows.append((m - o, name, kind, m, o))
    rows.sort(reverse=True)
    print(f"{os.path.basename(args.onnx)} at {args.threads} thread(s), ms per run "
          f"(Mote: mote-bench --per-op; onnxruntime: its profiler)")
    print(f"{'Mote':>8} {'ORT':>8} {'diff':>8}  node")
    for diff, name, kind, m, o in rows[: args.top or len(rows)]:
        print(f"{m:8.3f} {o:8.3f} {diff:+8.3f}  {kind} '{name}'")
    by_kind = collections.defaultdict(lambda: [0.0, 0.0])
    for _, _, kind, m, o in rows:
        by_kind[kind][0] += m
        by_kind[kind][1] += o
    print("\nper op type (onnxruntime's fused kernels under their own names):")
    for kind, (m, o) in sorted(by_kind.items(), key=lambda kv: -(kv[1][0] - kv[1][1])):
        print(f"{m:8.3f} {o:8.3f} {m - o:+8.3f}  {kind}")
    total_m = sum(v[0] for v in by_kind.values())
    total_o = sum(v[1] for v in by_kind.values())
    print(f"{total_m:8.3f} {total_o:8.3f} {total_m - total_o:+8.3f}  total")


if __name__ == "__main__":
    main()
