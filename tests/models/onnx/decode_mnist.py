#!/usr/bin/env python3
"""Decodes the MNIST digit JPEGs of ../shared/models/mnist-cntk to .npy inputs.

Each IMAGES_DIR/D.jpg (28x28 grey) becomes OUTDIR/D.npy: f32[1,1,28,28] with
the raw pixel values 0..255, the input Input3 of opt-mnist.onnx expects.
Decodes with PIL (Debian: python3-pil, which python3-torchvision pulls in;
pip: pillow), else imageio, else skimage. Prints the decoded files.

Usage: decode_mnist.py IMAGES_DIR OUTDIR
"""
import glob
import os
import sys

import numpy as np


def decode(path):
    try:
        from PIL import Image
        with Image.open(path) as image:
            return np.asarray(image.convert("L"), dtype=np.float32)
    except ImportError:
        pass
    try:
        import imageio
        return np.asarray(imageio.imread(path, pilmode="L"), dtype=np.float32)
    except ImportError:
        pass
    from skimage import io
    return np.asarray(io.imread(path, as_gray=True) * 255.0, dtype=np.float32)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    images, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    paths = sorted(glob.glob(os.path.join(images, "[0-9].jpg")))
    if not paths:
        sys.exit(f"decode_mnist.py: no digit images in {images}")
    for path in paths:
        pixels = decode(path)
        if pixels.shape != (28, 28):
            sys.exit(f"decode_mnist.py: {path}: shape {pixels.shape}, expected 28x28")
        out = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0] + ".npy")
        np.save(out, pixels.reshape(1, 1, 28, 28))
        print(out)


if __name__ == "__main__":
    main()
