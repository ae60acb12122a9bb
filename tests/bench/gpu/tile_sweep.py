#!/usr/bin/env python3
"""Times Mote's Vulkan backend on a set of .mote models with each candidate
GEMM tile (MOTE_VK_GEMM_TILE=LXxTMxTNxBK; runtime/vulkan/device_profile.cpp
holds the table the default comes from), to choose a device profile's row
by measurement (any python3; needs mote-bench).

For every model and tile: mote-bench's median latency (--repeat runs after
--warmup), or for a model of one op (a MatMul) that op's GPU time by
timestamps, without the uploads of its inputs. Prints a table of these
times and the tile with the lowest geometric mean relative to the first
tile (the default); --json writes everything.

  tile_sweep.py --mote-bench build/sdk/tools/mote-bench a.mote b.mote --tiles 64x32x4x32,128x16x4x16
"""
import argparse
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
import runtimes  # noqa: E402

DEFAULT_TILES = ["64x32x4x32", "128x16x4x16", "256x8x4x16", "128x8x8x16", "256x16x4x16", "64x16x4x32",
                 "128x32x2x16", "32x32x4x32", "256x8x8x8", "128x16x8x16"]


def bench(mote_bench, model, tile, repeat, warmup):
    """The time that counts (ms) and mote-bench's figures with `tile`, or
    None if it failed."""
    env = dict(os.environ, MOTE_VK_GEMM_TILE=tile)
    done = subprocess.run([mote_bench, model, "--backend", "vulkan", "--repeat", str(repeat), "--warmup",
                           str(warmup), "--per-op", "--top", "1"], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()
        print(f"  {os.path.basename(model)} with {tile}: {last[-1] if last else 'failed'}", file=sys.stderr)
        return None
    timings = runtimes.mote_bench_timings(done.stdout, "vulkan")
    p50 = timings["p50"] if timings else None
    ops, count = runtimes.mote_bench_ops(done.stdout)
    if p50 is None or not ops or ops[0][1] != "vulkan":
        print(f"  {os.path.basename(model)} with {tile}: no Vulkan timings in:\n{done.stdout}", file=sys.stderr)
        return None
    top_ms, _, top_op = ops[0]
    return {"ms": top_ms if count == 1 else p50, "p50_ms": p50, "top_op": top_op, "top_op_gpu_ms": top_ms}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help=".mote files")
    parser.add_argument("--mote-bench", required=True)
    parser.add_argument("--tiles", default=",".join(DEFAULT_TILES), help="LXxTMxTNxBK, comma-separated; the first "
                                                                          "is the reference")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    tiles = args.tiles.split(",")
    names = [os.path.basename(m) for m in args.models]
    results = {}
    for tile in tiles:
        results[tile] = {}
        for model in args.models:
            r = bench(args.mote_bench, model, tile, args.repeat, args.warmup)
            if r:
                results[tile][os.path.basename(model)] = r
        print(f"{tile}: " + "  ".join(f"{m} {v['ms']:.3f} ms" for m, v in results[tile].items()), flush=True)
        # Written after every tile, so that a sweep stopped at its time limit
        # still says which of the tiles it reached won.
        best, best_score = best_tile(tiles, names, results)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"tiles": tiles, "results": results, "best": best, "best_score": best_score}, f, indent=1)
    ref = results[tiles[0]]
    print("\n| tile (lx x tm x tn x bk) | " + " | ".join(names) + " | geometric mean vs first |")
    print("|---|" + "---:|" * (len(names) + 1))
    for tile in tiles:
        row = results[tile]
        score = geometric_ratio(row, ref, names)
        print(f"| {tile} | " + " | ".join("failed" if n not in row else f"{row[n]['ms']:.3f}" for n in names)
              + (f" | {score:.3f} |" if score is not None else " | - |"))
    print(f"\nbest: {best} ({best_score:.3f} of {tiles[0]}'s time, geometric mean)")


def geometric_ratio(row, ref, names):
    """The geometric mean of row's times over ref's, or None if either lacks a model."""
    if not all(n in row and n in ref for n in names):
        return None
    return math.exp(sum(math.log(row[n]["ms"] / ref[n]["ms"]) for n in names) / len(names))


def best_tile(tiles, names, results):
    """The tile (among those timed) with the lowest geometric ratio to the first."""
    best, best_score = None, math.inf
    for tile in results:
        score = geometric_ratio(results[tile], results[tiles[0]], names)
        if score is not None and score < best_score:
            best, best_score = tile, score
    return best, best_score

if __name__ == "__main__":
    main()
