#!/usr/bin/env python3
"""ONNX models without their weights, to carry to a machine where exporting
them is not possible or takes too long, and the weights put back there
(onnx and numpy; pyenv python3 here, any python3 with them there).

  weightless_onnx.py strip IN.onnx OUT.onnx   float initializers of more than
                                              64 values lose their data (their
                                              shape stays, in a marker)
  weightless_onnx.py fill IN.onnx OUT.onnx    each such initializer gets random
                                              values from a fixed seed: He
                                              scaling (sqrt(2 / fan_in)) for
                                              weights, 0.01 for vectors

Speed does not depend on the values; agreement checks between runtimes stay
meaningful because every runtime gets the same filled model. The scaling
assumes Conv and Gemm weights ([out, in, ...]) with BatchNorm folded, as in
torchvision's eval-mode exports: an unfolded BatchNormalization would get
negative variances, and a MatMul weight stored [in, out] a different scale.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper

MARKER = "mote.weightless.shape"
SMALL = 64  # initializers this small keep their values (shapes, axes, scales)


def strip(model):
    for init in model.graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT or int(np.prod(init.dims)) <= SMALL:
            continue
        dims = list(init.dims)
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.ClearField("dims")
        init.dims.append(0)
        init.doc_string = f"{MARKER}={','.join(map(str, dims))}"
    return model


def fill(model, seed):
    rng = np.random.default_rng(seed)
    for init in model.graph.initializer:
        if not init.doc_string.startswith(MARKER + "="):
            continue
        dims = [int(d) for d in init.doc_string.split("=", 1)[1].split(",")]
        fan_in = int(np.prod(dims[1:])) if len(dims) > 1 else 0
        scale = np.sqrt(2.0 / fan_in) if fan_in else 0.01
        values = (rng.standard_normal(dims) * scale).astype(np.float32)
        init.CopyFrom(numpy_helper.from_array(values, init.name))
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["strip", "fill"])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    model = onnx.load(args.input)
    model = strip(model) if args.mode == "strip" else fill(model, args.seed)
    onnx.save(model, args.output)
    left = [i.name for i in model.graph.initializer if i.doc_string.startswith(MARKER + "=")]
    if args.mode == "fill" and left:
        sys.exit(f"weightless_onnx.py: {len(left)} initializer(s) left empty")


if __name__ == "__main__":
    main()
