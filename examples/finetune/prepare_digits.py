#!/usr/bin/python3
"""Writes scikit-learn's digits (8x8 images of 0-9, 1797 samples; bundled with
scikit-learn, no download) as .npy files for the finetune example:

  DIR/digits_x.npy  float32 [1797, 64], pixels scaled to [0, 1]
  DIR/digits_y.npy  int64   [1797], the digit

Usage: /usr/bin/python3 prepare_digits.py DIR
The data is generated on demand and never committed.
"""
import os
import sys

import numpy as np
from sklearn.datasets import load_digits


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    # A fixed shuffle, so the train/test split in main.cpp mixes all writers.
    order = np.random.default_rng(0).permutation(len(y))
    np.save(os.path.join(out_dir, "digits_x.npy"), x[order])
    np.save(os.path.join(out_dir, "digits_y.npy"), y[order])
    print(f"wrote {len(y)} digits to {out_dir}")


if __name__ == "__main__":
    main()
