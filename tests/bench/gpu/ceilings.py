#!/usr/bin/env python3
"""The GPU's measured ceilings, against which docs/benchmarks.md states
Mote's GPU figures as fractions (torch with CUDA: the device machine's
python3; not part of the test suite).

  - copy: a device-to-device copy of --copy-gib GiB, bytes read plus written
    per second;
  - fp32 GEMM: an n x n x n float32 matmul through cuBLAS with TF32 off, so
    it runs on the fp32 vector units (the ceiling for Mote's fp32 shaders);
  - fp16 GEMM: the same in float16 (tensor cores: the matrix ceiling that
    cooperative-matrix shaders would be held to).

Each figure is the best of --repeat timed runs after two warm-ups, by CUDA
events. Prints one line per ceiling and writes --json.
"""
import argparse
import json

import torch


def timed_ms(fn, repeat):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copy-gib", type=float, default=2.0)
    parser.add_argument("--n", type=int, default=8192, help="GEMM size")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("ceilings.py: torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}

    n_bytes = int(args.copy_gib * (1 << 30))
    src = torch.empty(n_bytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = timed_ms(lambda: dst.copy_(src), args.repeat)
    result["copy_gb_s"] = 2 * n_bytes / (ms * 1e6)
    del src, dst

    n = args.n
    for dtype, key in ((torch.float32, "fp32_gemm_tflops"), (torch.float16, "fp16_gemm_tflops")):
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        ms = timed_ms(lambda: torch.mm(a, b), args.repeat)
        result[key] = 2 * n ** 3 / (ms * 1e9)
        del a, b

    print(f"{result['device']}: copy {result['copy_gb_s']:.0f} GB/s (read + write), "
          f"fp32 GEMM (TF32 off) {result['fp32_gemm_tflops']:.1f} TFLOP/s, "
          f"fp16 GEMM {result['fp16_gemm_tflops']:.0f} TFLOP/s ({n}^3, best of {args.repeat})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
