#!/usr/bin/env python3
"""Runs mote-info, mote-run and the examples as a user would, one CTest case
per invocation of this script:

    check_tools.py CASE --info BIN --run BIN --models DIR --work DIR [...]

Exit 0 on success, 1 on failure (with the reason), 77 when the case cannot run
here (numpy missing, no op without a kernel in this build); CTest maps 77 to
"skipped". Standard library only, numpy optional.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Failure(Exception):
    pass


def run(cmd, **kwargs):
    """Runs cmd; returns (returncode, stdout, stderr). Never raises on failure."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kwargs)
    return proc.returncode, proc.stdout, proc.stderr


def expect_ok(cmd, contains=()):
    code, out, err = run(cmd)
    if code != 0:
        raise Failure(f"{cmd} exited {code}\nstdout:\n{out}\nstderr:\n{err}")
    for text in contains:
        if text not in out:
            raise Failure(f"{cmd}: expected {text!r} in stdout:\n{out}")
    return out


def expect_clean_failure(cmd, tool, contains=()):
    """The tools' error contract: a non-zero exit (not a signal: Python reports
    those as negative codes, shells as 128+N), and exactly one stderr line
    "<tool>: <message>"."""
    code, out, err = run(cmd)
    if code == 0:
        raise Failure(f"{cmd} should have failed; stdout:\n{out}")
    if code < 0 or code >= 128:
        raise Failure(f"{cmd} crashed (exit {code}); stderr:\n{err}")
    lines = err.splitlines()
    if len(lines) != 1 or not lines[0].startswith(tool + ": "):
        raise Failure(f"{cmd}: expected one line '{tool}: ...' on stderr, got:\n{err}")
    for text in contains:
        if text not in lines[0]:
            raise Failure(f"{cmd}: expected {text!r} in the error: {lines[0]}")
    return lines[0]


def model(args, name):
    return os.path.join(args.models, name)


def write_file(args, name, data):
    path = os.path.join(args.work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def npy_bytes(header, data=b""):
    """A .npy v1 image with a hand-written header, for malformed-file cases."""
    head = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + data


# ---- fixture -----------------------------------------------------------------

@case
def make_models(args):
    shutil.rmtree(args.models, ignore_errors=True)  # no stale models from an older build
    os.makedirs(args.models)
    expect_ok([args.generator, args.models])


# ---- mote-info ---------------------------------------------------------------

@case
def info_help(args):
    expect_ok([args.info, "--help"], contains=["Usage", "--ops", "--plan", "--json"])


@case
def info_ops_json(args):
    out = expect_ok([args.info, "--ops", "--json"])
    try:
        table = json.loads(out)
    except json.JSONDecodeError as e:
        raise Failure(f"mote-info --ops --json is not JSON: {e}\n{out}")
    if not isinstance(table, list) or not table:
        raise Failure("expected a non-empty JSON list")
    seen = set()
    for entry in table:
        if not isinstance(entry, dict) or set(entry) != {"op", "backends"}:
            raise Failure(f"entry must have exactly 'op' and 'backends': {entry!r}")
        if not isinstance(entry["op"], str) or entry["op"] in seen:
            raise Failure(f"bad or repeated op name: {entry!r}")
        seen.add(entry["op"])
        backends = entry["backends"]
        if not isinstance(backends, list) or not all(isinstance(b, str) for b in backends):
            raise Failure(f"backends must be a list of strings: {entry!r}")
        if len(set(backends)) != len(backends) or not set(backends) <= {"cpu", "vulkan", "grad"}:
            raise Failure(f"unexpected backends: {entry!r}")
    relu = next((e for e in table if e["op"] == "Relu"), None)
    if relu is None or "cpu" not in relu["backends"]:
        raise Failure("Relu has a CPU kernel and must list 'cpu'")
    if "Invalid" in seen:
        raise Failure("the Invalid op type must not be listed")


@case
def info_ops_text(args):
    out = expect_ok([args.info, "--ops"], contains=["optimised", "reference", "op types run"])
    rows = [line.split() for line in out.splitlines()]
    if not any(row[:1] == ["Relu"] and "cpu" in row[-1].split(",") for row in rows):
        raise Failure(f"no 'Relu ... cpu' row:\n{out}")


@case
def info_model(args):
    out = expect_ok([args.info, model(args, "relu.mote")],
                    contains=["file size", "schema        version 1", "producer      mote tools test",
                              "data/x", "f32   2x3", "head/relu:0", "purpose = tools test", "weight bytes",
                              "parameters"])
    ops = out.split("ops (", 1)[1].splitlines()
    if not ops[0].startswith("1, 1 types)") or ops[1].split() != ["Relu", "1"]:
        raise Failure(f"unexpected op histogram:\n{out}")
    expect_ok([args.info, model(args, "weights.mote")],
              contains=["parameters    16", "weight bytes  64 bytes", "w     f32   4x4"])


@case
def info_plan(args):
    expect_ok([args.info, "--plan", model(args, "relu.mote")],
              contains=["plan (cpu)", "arena", "unshared", "folded at prepare", "prepare"])
    expect_ok([args.info, "--plan", "--shape", "x=5x4", model(args, "dynamic.mote")], contains=["arena"])
    expect_clean_failure([args.info, "--plan", model(args, "dynamic.mote")], "mote-info", contains=["dynamic"])


@case
def info_errors(args):
    expect_clean_failure([args.info], "mote-info", contains=["MODEL"])
    expect_clean_failure([args.info, model(args, "missing.mote")], "mote-info", contains=["missing.mote"])
    expect_clean_failure([args.info, "--json", model(args, "relu.mote")], "mote-info", contains=["--ops"])
    expect_clean_failure([args.info, "--no-such-flag"], "mote-info")
    garbage = write_file(args, "garbage.mote", b"MOTE" * 100)
    expect_clean_failure([args.info, garbage], "mote-info", contains=["garbage.mote"])


# ---- mote-run ----------------------------------------------------------------

@case
def run_help(args):
    expect_ok([args.run, "--help"], contains=["Usage", "--input", "--output-dir", "--repeat", "--warmup",
                                              "--backend", "--shape", "--threads"])


@case
def run_random(args):
    out = expect_ok([args.run, model(args, "relu.mote"), "--repeat", "3", "--warmup", "1", "--threads", "1"],
                    contains=["backend  cpu, 1 thread", "data/x  f32  2x3  from random", "head/relu:0  f32  2x3",
                              "prepare", "first run", "3 runs", "min", "median", "mean"])
    # Seeded: the same seed prints the same values, another seed others.
    again = expect_ok([args.run, model(args, "relu.mote"), "--repeat", "0"])
    other = expect_ok([args.run, model(args, "relu.mote"), "--repeat", "0", "--seed", "7"])
    values = lambda text: [l for l in text.splitlines() if "head/relu:0" in l]
    if values(out) != values(again) or values(out) == values(other):
        raise Failure(f"random inputs are not seeded:\n{out}\n{again}\n{other}")


@case
def run_npy_roundtrip(args):
    try:
        import numpy as np
    except ImportError:
        print("numpy is not installed: skipping")
        return SKIP
    x = np.array([[-1.5, 2.0, -0.0], [0.25, -3.0, 7.5]], dtype=np.float32)
    np.save(os.path.join(args.work, "x.npy"), x)
    for backend in ("cpu", "reference"):
        out_dir = os.path.join(args.work, "out_" + backend)
        expect_ok([args.run, model(args, "relu.mote"), "--input", "data/x=" + os.path.join(args.work, "x.npy"),
                   "--output-dir", out_dir, "--backend", backend, "--repeat", "1"],
                  contains=["from " + os.path.join(args.work, "x.npy"), "head_relu_0.npy"])
        # '/' and ':' of "head/relu:0" are replaced in the file name.
        y = np.load(os.path.join(out_dir, "head_relu_0.npy"))
        if y.dtype != np.float32 or y.shape != (2, 3) or not np.array_equal(y, np.maximum(x, 0)):
            raise Failure(f"{backend}: got {y!r}, expected {np.maximum(x, 0)!r}")
    # Every dtype numpy writes and mote-run reads survives a round trip
    # through the reader: a wrong dtype is refused with a hint, not misread.
    np.save(os.path.join(args.work, "x64.npy"), x.astype(np.float64))
    expect_clean_failure([args.run, model(args, "relu.mote"), "--input",
                          "data/x=" + os.path.join(args.work, "x64.npy")], "mote-run", contains=["f64", "astype"])
    np.save(os.path.join(args.work, "xf.npy"), np.asfortranarray(np.ones((2, 3), np.float32)))
    expect_clean_failure([args.run, model(args, "relu.mote"), "--input",
                          "data/x=" + os.path.join(args.work, "xf.npy")], "mote-run", contains=["Fortran"])


@case
def run_dynamic(args):
    expect_clean_failure([args.run, model(args, "dynamic.mote")], "mote-run", contains=["dynamic", "--shape x="])
    expect_ok([args.run, model(args, "dynamic.mote"), "--shape", "x=3x4", "--repeat", "1"],
              contains=["x  f32  3x4", "y  f32  3x4"])
    expect_clean_failure([args.run, model(args, "dynamic.mote"), "--shape", "x=3x5"], "mote-run",
                         contains=["does not match"])
    expect_clean_failure([args.run, model(args, "dynamic.mote"), "--shape", "x=3by4"], "mote-run",
                         contains=["3by4"])


@case
def run_errors(args):
    relu = model(args, "relu.mote")
    tool = "mote-run"
    expect_clean_failure([args.run], tool, contains=["MODEL"])
    expect_clean_failure([args.run, model(args, "missing.mote")], tool, contains=["missing.mote"])
    for name, data in [("empty.mote", b""), ("garbage.mote", os.urandom(4096)),
                       ("fake.mote", b"\x10\x00\x00\x00MOTE" + b"\xff" * 200)]:
        expect_clean_failure([args.run, write_file(args, name, data)], tool, contains=[name])
    # An op type this runtime does not know (a model from a newer Mote).
    expect_clean_failure([args.run, model(args, "newer.mote")], tool, contains=["newer.mote", "4000"])
    expect_clean_failure([args.info, model(args, "newer.mote")], "mote-info", contains=["4000"])
    # Truncated real models: inside the flatbuffer, and (for a model with
    # weights) one byte short of the weight segment's end.
    with open(relu, "rb") as f:
        whole = f.read()
    for cut in (9, len(whole) // 2):
        expect_clean_failure([args.run, write_file(args, f"cut{cut}.mote", whole[:cut])], tool)
    with open(model(args, "weights.mote"), "rb") as f:
        whole = f.read()
    expect_clean_failure([args.run, write_file(args, "cutw.mote", whole[:-1])], tool, contains=["truncated"])
    # Malformed .npy files.
    good_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    bad_npys = {
        "notnpy.npy": b"hello",
        "short.npy": npy_bytes(good_header, b"\x00" * 8),
        "header.npy": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", b"\x00" * 24),
        "dtype.npy": npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", b"\x00" * 48),
        "bigend.npy": npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", b"\x00" * 24),
        "shape.npy": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", b"\x00" * 24),
    }
    for name, data in bad_npys.items():
        expect_clean_failure([args.run, relu, "--input", "data/x=" + write_file(args, name, data)], tool,
                             contains=[name])
    expect_clean_failure([args.run, relu, "--input", "data/x=" + os.path.join(args.work, "none.npy")], tool,
                         contains=["none.npy"])
    expect_clean_failure([args.run, relu, "--input", "nosuch=x.npy"], tool, contains=["nosuch", "data/x"])
    expect_clean_failure([args.run, relu, "--input", "data/x"], tool, contains=["NAME=VALUE"])
    expect_clean_failure([args.run, relu, "--backend", "quantum"], tool, contains=["quantum"])
    expect_clean_failure([args.run, relu, "--threads", "-1"], tool)
    expect_clean_failure([args.run, relu, "--repeat", "many"], tool)
    blocker = write_file(args, "blocker", b"a file where a directory should be")
    expect_clean_failure([args.run, relu, "--output-dir", os.path.join(blocker, "out")], tool)


# ---- examples ----------------------------------------------------------------

@case
def example_cpp(args):
    if not args.example_cpp:
        return SKIP
    expect_ok([args.example_cpp], contains=["y f32 2x3: 0 0 0 0 0.5 1"])
    saved = os.path.join(args.work, "saved.mote")
    expect_ok([args.example_cpp, "--save", saved], contains=["y f32 2x3: 0 0 0 0 0.5 1"])
    expect_ok([args.example_cpp, model(args, "relu.mote")], contains=["head/relu:0 f32 2x3: 0 0 0 0 0.5 1"])


@case
def example_c(args):
    if not args.example_c:
        return SKIP
    expect_ok([args.example_c, model(args, "relu.mote")], contains=["head/relu:0 f32 2x3: 0 0 0 0 0.5 1"])
    expect_ok([args.example_c, model(args, "dynamic.mote")], contains=["y f32 1x4: 0 0 0 0"])
    code, _, err = run([args.example_c, model(args, "missing.mote")])
    if code != 1 or "missing.mote" not in err:
        raise Failure(f"expected a clean failure naming the file, got exit {code}: {err}")


@case
def info_devices(args):
    out = expect_ok([args.info, "--devices"])
    if not (out.startswith("device ") or out.startswith("no Vulkan device: ")):
        raise Failure(f"expected a device line or 'no Vulkan device: <why>':\n{out}")


def relu_values(text):
    return [l.split("  ", 3)[-1] for l in text.splitlines() if l.strip().startswith("y  f32")]


def printed_values(text, name):
    """The values mote-run printed of output `name` ("  y  f32  64x64  [0.1, 0.2, ...]")."""
    for line in text.splitlines():
        if line.strip().startswith(name + "  ") and "[" in line:
            inside = line[line.index("[") + 1:line.index("]")]
            return [float(v) for v in inside.split(",") if v.strip() and v.strip() != "..."]
    return []


@case
def run_vulkan(args):
    # 1024x4 = 4096 elements: at the island threshold, so Relu is placed on the
    # GPU when a device exists, and on the CPU (with a note) when none does.
    base = [args.run, model(args, "dynamic.mote"), "--shape", "x=1024x4", "--repeat", "2"]
    gpu = expect_ok(base + ["--backend", "vulkan", "--placement"], contains=["placement", "Relu"])
    cpu = expect_ok(base + ["--backend", "cpu"])
    if relu_values(gpu) != relu_values(cpu) or not relu_values(cpu):
        raise Failure(f"Vulkan and CPU outputs differ:\n{gpu}\n{cpu}")
    has_device = expect_ok([args.info, "--devices"]).startswith("device ")
    row = [l for l in gpu.splitlines() if "Relu" in l and "#" in l]
    if has_device and (not row or "vulkan" not in row[0]):
        raise Failure(f"Relu should run on the GPU:\n{gpu}")
    forced = expect_ok(base + ["--backend", "vulkan", "--placement", "--cpu-op", "Relu"])
    if "forced to the CPU" not in forced:
        raise Failure(f"--cpu-op Relu should keep Relu on the CPU:\n{forced}")
    expect_clean_failure(base + ["--backend", "gpu"], "mote-run", contains=["unknown backend 'gpu'"])


@case
def bench(args):
    out = expect_ok([args.bench, model(args, "dynamic.mote"), "--shape", "x=1024x4", "--backend", "cpu,vulkan",
                     "--repeat", "3", "--warmup", "1", "--per-op"],
                    contains=["prep cold", "prep warm", "p50 ms", "p90 ms", "per op", "peak host memory"])
    rows = [l.split() for l in out.splitlines()]
    if not any(r[:1] == ["cpu"] for r in rows):
        raise Failure(f"no cpu row:\n{out}")
    expect_clean_failure([args.bench, model(args, "dynamic.mote"), "--shape", "x=2x4", "--backend", "tpu"],
                         "mote-bench", contains=["unknown backend"])


@case
def bench_tune(args):
    has_device = expect_ok([args.info, "--devices"]).startswith("device ")
    tuning = os.path.join(args.work, "tuning")
    cmd = [args.bench, model(args, "matmul.mote"), "--backend", "vulkan", "--tune", "--tune-runs", "1",
           "--tune-candidates", "16x4x1x4,8x8", "--tuning-dir", tuning, "--repeat", "1", "--warmup", "0"]
    if not has_device:
        code, out, err = run(cmd)
        if code == 0 or code < 0 or code >= 128:
            raise Failure(f"--tune without a device should fail cleanly, got exit {code}: {err}")
        return
    out = expect_ok(cmd, contains=["GEMM tuning on", "48x128x32x1", "skipped 8x8", "a run:", "tuning file:",
                                   "GEMM tiles (vulkan):"])
    row = [l for l in out.splitlines() if "48x128x32x1" in l]
    if not row or not ("written" in row[0] or "kept profile" in row[0]):
        raise Failure(f"no tuning row for the MatMul's shape:\n{out}")
    expect_ok([args.run, model(args, "matmul.mote"), "--backend", "vulkan", "--placement", "--repeat", "0"],
              contains=["GEMM 48x128x32x1 on ", "gemm "])


@case
def run_fp16_arithmetic(args):
    # The MatMul (depth 32) with f16 storage and f16 products: marked "f16
    # math" in the placement, counted in the storage line, and within f16's
    # error of the CPU's output. Without shaderFloat16 the line says so.
    expect_clean_failure([args.run, model(args, "matmul.mote"), "--backend", "vulkan", "--fp16-arithmetic"],
                         "mote-run", contains=["--fp16"])
    if not expect_ok([args.info, "--devices"]).startswith("device "):
        return  # run_vulkan covers the CPU fallback
    cmd = [args.run, model(args, "matmul.mote"), "--backend", "vulkan", "--fp16", "on", "--fp16-arithmetic",
           "--placement", "--repeat", "0", "--values", "8"]
    out = expect_ok(cmd, contains=["storage  f16 storage: 1 GPU ops f16"])
    row = [l for l in out.split("\nplacement\n", 1)[-1].splitlines() if "MatMul" in l]
    if "no shaderFloat16" in out:
        if not row or "f16 math" in row[0]:
            raise Failure(f"without shaderFloat16 the MatMul should not multiply in f16:\n{out}")
    elif "(1 with f16 products)" not in out or not row or "vulkan f16 math" not in row[0]:
        raise Failure(f"the MatMul should run with f16 products:\n{out}")
    cpu = printed_values(expect_ok([args.run, model(args, "matmul.mote"), "--repeat", "0", "--values", "8"]), "y")
    gpu = printed_values(out, "y")
    scale = max([abs(v) for v in cpu] + [1.0])
    if len(cpu) != 8 or len(gpu) != 8 or any(abs(x - y) > 1e-2 * scale for x, y in zip(cpu, gpu)):
        raise Failure(f"f16 products differ from the CPU's by more than 1e-2: {gpu} against {cpu}")


@case
def run_fp16_auto(args):
    has_device = expect_ok([args.info, "--devices"]).startswith("device ")
    cmd = [args.run, model(args, "overflow.mote"), "--backend", "vulkan", "--fp16", "auto", "--repeat", "1"]
    expect_clean_failure(cmd[:-4] + ["--fp16", "half"], "mote-run", contains=["--fp16"])
    if not has_device:
        code, out, err = run(cmd)
        if code == 0 or code < 0 or code >= 128:
            raise Failure(f"--fp16 auto without a device should fail cleanly, got exit {code}: {err}")
        return
    # 1e5 * x passes f16's 65504: the op making it and the one reading it stay
    # f32; Relu stores f16. The output equals the CPU's (to f16 rounding).
    out = expect_ok(cmd + ["--placement"], contains=["fp16 auto on", "scale_up", "makes values up to",
                                                     "scale_down", "reads values up to", "a run: f32",
                                                     "storage  f16 storage: 1 GPU ops f16, 2 f32"])
    listed = out.split("\nplacement\n", 1)[-1].splitlines()
    row = [l for l in listed if "'relu'" in l] + [l for l in listed if "'scale_up'" in l]
    if len(row) != 2 or "vulkan f16" not in row[0] or "vulkan f32" not in row[1]:
        raise Failure(f"Relu should run on the GPU in f16, scale_up in f32:\n{out}")
    cpu = expect_ok([args.run, model(args, "overflow.mote"), "--repeat", "0", "--values", "6"])
    gpu = expect_ok(cmd[:-1] + ["0", "--values", "6"])
    a, b = printed_values(cpu, "y"), printed_values(gpu, "y")
    if len(a) != 6 or len(b) != 6 or any(abs(x - y) > 2e-3 * max(1.0, abs(x)) for x, y in zip(a, b)):
        raise Failure(f"--fp16 auto outputs differ from the CPU's: {b} against {a}")
    expect_ok([args.bench, model(args, "overflow.mote"), "--backend", "vulkan", "--fp16", "auto", "--repeat", "1",
               "--warmup", "0"], contains=["fp16 auto on", "f16 storage but 2 op name(s)/type(s) f32"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--info")
    parser.add_argument("--run")
    parser.add_argument("--bench")
    parser.add_argument("--generator")
    parser.add_argument("--example-cpp", default="")
    parser.add_argument("--example-c", default="")
    parser.add_argument("--models", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    try:
        code = CASES[args.case](args) or 0
    except Failure as e:
        print(f"FAILED {args.case}: {e}")
        return 1
    except subprocess.TimeoutExpired as e:
        print(f"FAILED {args.case}: timed out: {e.cmd}")
        return 1
    print(f"{args.case}: {'skipped' if code == SKIP else 'ok'}")
    return code


if __name__ == "__main__":
    sys.exit(main())
