#!/usr/bin/env python3
"""Writes Fashion-MNIST (Debian package dataset-fashion-mnist) as .npy files
for the finetune example:

  DIR/fashion_train_x.npy  float32 [60000, 1, 28, 28], pixels scaled to [0, 1]
  DIR/fashion_train_y.npy  int64   [60000], the class 0..9
  DIR/fashion_test_x.npy   float32 [10000, 1, 28, 28]
  DIR/fashion_test_y.npy   int64   [10000]
  DIR/fashion_calibration/NN.npy  float32 [32, 1, 28, 28]: 16 batches of
                           training images, for mote-convert --quantize int8
                           --calibrate (docs/quantization.md)

Runs on either Python (needs only numpy: the pyenv `python3` has it from
platforms/linux/setup-debian.sh, Debian's /usr/bin/python3 from python3-numpy).
Usage: prepare_fashion.py DIR [SOURCE_DIR]
SOURCE_DIR defaults to /usr/share/datasets/fashion-mnist (the package's
gzipped IDX files). The data is written on demand and never committed.
"""
import gzip
import os
import sys

import numpy as np


def read_idx(path, dims):
    """An IDX file: magic (0, 0, type 0x08 = ubyte, rank), big-endian dims, bytes."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    if data[0:3] != b"\x00\x00\x08" or data[3] != dims:
        sys.exit(f"{path}: not a rank-{dims} unsigned-byte IDX file")
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims)
    if values.size != np.prod(shape):
        sys.exit(f"{path}: header says {shape}, file holds {values.size} values")
    return values.reshape(shape)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    source = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/datasets/fashion-mnist"
    os.makedirs(out_dir, exist_ok=True)
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images = read_idx(os.path.join(source, f"{prefix}-images-idx3-ubyte.gz"), 3)
        labels = read_idx(os.path.join(source, f"{prefix}-labels-idx1-ubyte.gz"), 1)
        x = (images.astype(np.float32) / 255.0)[:, None, :, :]
        np.save(os.path.join(out_dir, f"fashion_{split}_x.npy"), x)
        np.save(os.path.join(out_dir, f"fashion_{split}_y.npy"), labels.astype(np.int64))
        print(f"wrote {len(labels)} {split} images to {out_dir}")
        if split == "train":
            write_calibration(x, os.path.join(out_dir, "fashion_calibration"))


def write_calibration(x, folder, batches=16, batch=32):
    """Training images spread over the set (never test images), in batches."""
    os.makedirs(folder, exist_ok=True)
    picks = np.random.default_rng(0).choice(len(x), batches * batch, replace=False)
    for i in range(batches):
        np.save(os.path.join(folder, f"{i:02d}.npy"), x[picks[i * batch:(i + 1) * batch]])


if __name__ == "__main__":
    main()
