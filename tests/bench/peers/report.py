"""The peer benchmark's table (Markdown) and chart (PNG).

Ratios are peer median / Mote median: above 1, Mote is faster. The last
column compares Mote with the fastest peer that ran the model.
"""
import os
import re

RUNTIMES = ["Mote", "onnxruntime", "ncnn", "MNN"]
BEGIN = "<!-- peer-bench:begin (written by tests/bench/peers/peer_bench.py --docs) -->"
END = "<!-- peer-bench:end -->"
CHART = os.path.join("docs", "images", "peer-bench.png")


def _cell(stats):
    return f"{stats['median']:.2f} ({stats['p10']:.2f}-{stats['p90']:.2f})"


def _timing_table(results, threads):
    lines = [f"**{threads} thread{'s' if threads > 1 else ''}**, median ms (10th-90th percentile); "
             "for a peer, its time over Mote's (above 1: Mote is faster)", "",
             "| model | " + " | ".join(RUNTIMES) + " | Mote vs fastest peer |",
             "|---|" + "---:|" * (len(RUNTIMES) + 1)]
    for r in results:
        timing = r["threads"].get(threads, {})
        mote = timing.get("Mote")
        cells = []
        for which in RUNTIMES:
            stats = timing.get(which)
            if stats is None:
                cells.append("-")
            elif which == "Mote" or mote is None:
                cells.append(_cell(stats))
            else:
                cells.append(f"{_cell(stats)} · {stats['median'] / mote['median']:.2f}")
        peers = [timing[w]["median"] for w in RUNTIMES[1:] if w in timing]
        verdict = "-"
        if mote is not None and peers:
            ratio = min(peers) / mote["median"]
            verdict = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
        lines.append(f"| {r['model']} | " + " | ".join(cells) + f" | {verdict} |")
    return lines


def _spells_table(results, threads, limit):
    """Medians of the runs taken while the host's cross-core round trip was
    at most `limit` ns, beside the share of runs above it; None when the
    runs were not probed."""
    rows = []
    for r in results:
        timing = r["threads"].get(threads, {})
        mote = timing.get("Mote")
        if not mote or "fast" not in mote:
            return None
        trips = [s["round_trip_ns"] for s in timing.values()]
        total = sum(s["count"] for s in timing.values())
        slow = total - sum(s["fast"]["count"] for s in timing.values())
        peers = [(s["fast"]["median"], w) for w, s in timing.items()
                 if w != "Mote" and s["fast"]["median"] is not None]
        verdict = "-"
        if mote["fast"]["median"] is not None and peers:
            best, who = min(peers)
            ratio = best / mote["fast"]["median"]
            verdict = (f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower") + f" ({who})"
        cells = [f"{timing[w]['fast']['median']:.2f}" if w in timing and timing[w]["fast"]["median"] is not None
                 else "-" for w in RUNTIMES]
        rows.append(f"| {r['model']} | {sorted(trips)[len(trips) // 2]:.0f} | {100 * slow / max(total, 1):.0f} % | "
                    + " | ".join(cells) + f" | {verdict} |")
    return [f"**{threads} thread{'s' if threads > 1 else ''}, runs outside the host's slow spells** "
            f"(cross-core round trip at most {limit} ns, probed before each runtime's runs in a round), median ms", "",
            "| model | round trip, ns (median) | runs in slow spells | " + " | ".join(RUNTIMES)
            + " | Mote vs fastest peer |",
            "|---|---:|---:|" + "---:|" * (len(RUNTIMES) + 1)] + rows


def markdown(results, meta):
    v = meta["versions"]
    peers = ", ".join(f"{name} {v[name]}" for name in RUNTIMES[1:] if v.get(name))
    lines = [f"Measured {meta['date']} on {meta['machine']}: Mote {v['Mote']} against {peers}; "
             f"models exported by torch {meta['torch']} (opset 17, batch 1, fp32, random weights), "
             f"{meta['rounds']} interleaved rounds of {meta['runs']} runs per runtime"
             + (f", each runtime's after {meta['settle_ms']:g} ms of untimed runs." if meta.get("settle_ms")
                else "."), ""]
    for threads in meta["threads"]:
        lines += _timing_table(results, threads) + [""]
    limit = meta.get("slow_round_trip_ns")
    # 1-thread runs keep their speed in the spells: no table for them.
    for threads in [t for t in meta["threads"] if t > 1] if limit else []:
        spells = _spells_table(results, threads, limit)
        if spells:
            lines += spells + [""]
    lines += ["Agreement with onnxruntime on the same input, max|diff| / max|onnxruntime| "
              f"(goal: within {meta['agreement']:g}):", "",
              "| model | " + " | ".join(w for w in RUNTIMES if w != "onnxruntime") + " |",
              "|---|" + "---:|" * (len(RUNTIMES) - 1)]
    for r in results:
        cells = [f"{r['errors'][w]:.1e}" if w in r["errors"] else "-" for w in RUNTIMES if w != "onnxruntime"]
        lines.append(f"| {r['model']} | " + " | ".join(cells) + " |")
    left_out = [(r["model"], w, why) for r in results for w, why in r["left_out"].items()]
    if left_out:
        lines += ["", "Left out:", ""]
        lines += [f"- {model}, {w}: {why.splitlines()[0]}" for model, w, why in left_out]
    return "\n".join(lines)


def chart(results, meta, path):
    """Grouped bars, one panel per thread count. Returns False without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    models = [r["model"] for r in results]
    fig, axes = plt.subplots(1, len(meta["threads"]), figsize=(6 * len(meta["threads"]), 4.5), squeeze=False)
    width = 0.8 / len(RUNTIMES)
    for ax, threads in zip(axes[0], meta["threads"]):
        for k, which in enumerate(RUNTIMES):
            xs, heights = [], []
            for i, r in enumerate(results):
                stats = r["threads"].get(threads, {}).get(which)
                if stats:
                    xs.append(i + (k - (len(RUNTIMES) - 1) / 2) * width)
                    heights.append(stats["median"])
            ax.bar(xs, heights, width, label=which)
        ax.set_yscale("log")
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel("median latency, ms (log scale)")
        ax.set_title(f"{threads} thread{'s' if threads > 1 else ''}")
        ax.legend(fontsize=8)
    fig.suptitle(f"CPU inference, batch 1, fp32 ({meta['machine'].split(',')[0]}, {meta['date']})", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=90)
    return True


def write_docs(table, results, meta, root):
    """Replaces the text between the markers in docs/benchmarks.md (appends
    a section the first time) and writes the chart."""
    has_chart = chart(results, meta, os.path.join(root, CHART))
    body = table + (f"\n\n![peer benchmark](images/{os.path.basename(CHART)})" if has_chart else "")
    path = os.path.join(root, "docs", "benchmarks.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    block = f"{BEGIN}\n{body}\n{END}"
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n## CPU against the peers (tests/bench/peers)\n\n" + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path}" + (f" and {CHART}" if has_chart else " (no chart: pip install matplotlib)"))
