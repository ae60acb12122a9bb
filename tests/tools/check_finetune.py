#!/usr/bin/python3
"""examples/finetune run as a user runs it: digits written by
prepare_digits.py, a small CNN trained from scratch, and what the run leaves
behind checked independently of the example's own printout:

  - the reloaded model's test accuracy clears a bar only a working trainer
    reaches (10 % is chance);
  - the CSV has one row per step, and the loss falls;
  - the PNG decodes (PIL) to an 800x400 image with the curve's colours in it.

Runs with Debian's /usr/bin/python3 (scikit-learn for the data, PIL).
Usage: check_finetune.py --example BIN --prepare prepare_digits.py --work DIR
"""
import argparse
import csv
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", required=True)
    parser.add_argument("--prepare", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    subprocess.run([sys.executable, args.prepare, args.work], check=True)
    run = subprocess.run([args.example, "--task", "digits-cnn", "--data", args.work, "--epochs", str(args.epochs)],
                         capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        sys.exit(f"finetune failed ({run.returncode}): {run.stderr}")

    epoch_lines = [l for l in run.stdout.splitlines() if l.startswith("epoch")]
    assert len(epoch_lines) == args.epochs, f"expected {args.epochs} epoch lines"
    assert all("samples/s" in l for l in epoch_lines), "every epoch reports samples/s"
    reloaded = float(re.search(r"reloaded test accuracy ([0-9.]+)", run.stdout).group(1))
    assert reloaded >= 0.95, f"test accuracy {reloaded} after {args.epochs} epochs; a working trainer reaches 0.95"

    with open(os.path.join(args.work, "digits-cnn_loss.csv")) as f:
        rows = [r for r in csv.reader(f)]
    header_end = rows.index([])  # the blank line before the per-epoch table
    steps = rows[1:header_end]
    assert rows[0] == ["step", "epoch", "loss", "learning_rate"], rows[0]
    assert len(steps) == args.epochs * (1500 // 50), f"{len(steps)} step rows"
    losses = [float(r[2]) for r in steps]
    first, last = sum(losses[:30]) / 30, sum(losses[-30:]) / 30
    assert last < first / 4, f"loss fell only from {first} to {last}"

    from PIL import Image
    with Image.open(os.path.join(args.work, "digits-cnn_loss.png")) as image:
        assert image.size == (800, 400), image.size
        colours = set(image.convert("RGB").getdata())
    assert (31, 119, 180) in colours and (255, 127, 14) in colours, "loss and accuracy curves drawn"
    print(f"ok: reloaded accuracy {reloaded}, loss {first:.3f} -> {last:.4f}, {len(steps)} CSV rows, PNG decoded")


if __name__ == "__main__":
    main()
