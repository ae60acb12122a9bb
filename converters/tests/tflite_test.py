#!/usr/bin/env python3
"""The TFLite converter against LiteRT's interpreter, op by op and on small
networks, float32 and int8 (pip python3: numpy, flatbuffers, ai-edge-litert).

Each case builds a .tflite model (tflite_models.py, with LiteRT's own schema
module), runs it in LiteRT's interpreter, converts it with mote-convert, runs
the .mote with mote-run on every backend asked for, and compares:
float outputs within --rtol/--atol of LiteRT; int8 outputs within a case's
number of quantisation steps (Mote computes between the int8 tensors in
float, LiteRT in fixed point, so the last step may round the other way).

  tflite_test.py --convert build/converters/mote-convert --run build/sdk/tools/mote-run \\
      [--backends cpu,vulkan] [--cases conv_2d,...] [--keep DIR]

Exit status: 0 all passed, 1 a case failed, 77 LiteRT or numpy missing
(CTest reports the test as skipped).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
    import tflite_models as tm
    from tflite_models import OP, OPT, tfl
except ImportError as e:
    print(f"tflite_test.py: skipped: {e} (python3 -m pip install numpy flatbuffers ai-edge-litert)")
    sys.exit(77)

CASES = {}


def case(kind="float", steps=1, report=None):
    """Registers build(g, rng) -> (outputs, feeds) as a case; `steps` is the
    int8 tolerance in quantisation steps, `report` a line mote-convert's
    report must hold (the int8 Convs reaching the int8 kernel)."""
    def register(fn):
        CASES[fn.__name__] = (fn, kind, steps, report)
        return fn
    return register


def rand(rng, *shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


# ---------------------------------------------------------------- float ops

def conv(g, rng, x, cin, cout, k, stride=1, padding=tfl.Padding.SAME, act=tfl.ActivationFunctionType.NONE,
         name="conv", out_shape=None, dilation=1):
    w = g.weight(rand(rng, cout, k, k, cin, lo=-0.5, hi=0.5), name + "_w", axis=0)
    b = g.bias(rand(rng, cout, lo=-0.2, hi=0.2), name + "_b", x, w)
    y = g.act(out_shape, name)
    return g.op(OP.CONV_2D, [x, w, b], [y], OPT.Conv2DOptions,
                tm.options(tfl.Conv2DOptionsT, padding=padding, strideW=stride, strideH=stride,
                           fusedActivationFunction=act, dilationWFactor=dilation, dilationHFactor=dilation))


def depthwise(g, rng, x, c, k, stride=1, mult=1, padding=tfl.Padding.SAME, act=tfl.ActivationFunctionType.NONE,
              name="dw", out_shape=None):
    w = g.weight(rand(rng, 1, k, k, c * mult, lo=-0.5, hi=0.5), name + "_w", axis=3)
    b = g.bias(rand(rng, c * mult, lo=-0.2, hi=0.2), name + "_b", x, w)
    y = g.act(out_shape, name)
    return g.op(OP.DEPTHWISE_CONV_2D, [x, w, b], [y], OPT.DepthwiseConv2DOptions,
                tm.options(tfl.DepthwiseConv2DOptionsT, padding=padding, strideW=stride, strideH=stride,
                           depthMultiplier=mult, fusedActivationFunction=act, dilationWFactor=1, dilationHFactor=1))


@case()
def conv_2d(g, rng):
    x = g.input([1, 9, 11, 3])
    y = conv(g, rng, x, 3, 8, 3, stride=2, act=tfl.ActivationFunctionType.RELU6, out_shape=[1, 5, 6, 8])
    return [y], {"input0": rand(rng, 1, 9, 11, 3)}


@case()
def conv_2d_valid_dilated_grouped(g, rng):
    x = g.input([1, 12, 12, 4])
    w = g.const(rand(rng, 6, 3, 3, 2))  # 2 groups of 2 input channels
    y = g.op(OP.CONV_2D, [x, w, g.const(rand(rng, 6))], [g.out([1, 8, 8, 6])], OPT.Conv2DOptions,
             tm.options(tfl.Conv2DOptionsT, padding=tfl.Padding.VALID, strideW=1, strideH=1,
                        dilationWFactor=2, dilationHFactor=2))
    return [y], {"input0": rand(rng, 1, 12, 12, 4)}


@case()
def depthwise_conv_2d(g, rng):
    x = g.input([1, 10, 10, 4])
    y = depthwise(g, rng, x, 4, 3, stride=2, mult=2, act=tfl.ActivationFunctionType.RELU, out_shape=[1, 5, 5, 8])
    return [y], {"input0": rand(rng, 1, 10, 10, 4)}


@case()
def transpose_conv(g, rng):
    x = g.input([1, 5, 5, 4])
    w = g.const(rand(rng, 3, 3, 3, 4))
    y = g.op(OP.TRANSPOSE_CONV, [g.const(np.array([1, 10, 10, 3], np.int32)), w, x], [g.out([1, 10, 10, 3])],
             OPT.TransposeConvOptions, tm.options(tfl.TransposeConvOptionsT, padding=tfl.Padding.SAME, strideW=2, strideH=2))
    return [y], {"input0": rand(rng, 1, 5, 5, 4)}


@case()
def fully_connected_from_image(g, rng):
    # A 4-D input flattened in NHWC order: the converter must not flatten its NCHW form.
    x = g.input([1, 4, 4, 3])
    c = conv(g, rng, x, 3, 5, 3, out_shape=[1, 4, 4, 5])
    w = g.const(rand(rng, 7, 80))
    y = g.op(OP.FULLY_CONNECTED, [c, w, g.const(rand(rng, 7))], [g.out([1, 7])], OPT.FullyConnectedOptions,
             tm.options(tfl.FullyConnectedOptionsT, fusedActivationFunction=tfl.ActivationFunctionType.RELU_N1_TO_1))
    return [y], {"input0": rand(rng, 1, 4, 4, 3)}


@case(report=r"weights: .* in 1 tensors")
def fully_connected_shared_weights(g, rng):
    # One weight tensor read by two FULLY_CONNECTED ops: written once.
    w = g.const(rand(rng, 4, 6))
    ys = [g.op(OP.FULLY_CONNECTED, [g.input([2, 6]), w, -1], [g.out([2, 4])], OPT.FullyConnectedOptions,
               tm.options(tfl.FullyConnectedOptionsT)) for _ in range(2)]
    return ys, {"input0": rand(rng, 2, 6), "input1": rand(rng, 2, 6)}


@case()
def fully_connected_keep_num_dims(g, rng):
    x = g.input([2, 3, 6])
    y = g.op(OP.FULLY_CONNECTED, [x, g.const(rand(rng, 4, 6)), -1], [g.out([2, 3, 4])], OPT.FullyConnectedOptions,
             tm.options(tfl.FullyConnectedOptionsT, keepNumDims=True))
    return [y], {"input0": rand(rng, 2, 3, 6)}


@case()
def batch_matmul(g, rng):
    a, b = g.input([2, 3, 4]), g.input([2, 5, 4])
    y = g.op(OP.BATCH_MATMUL, [a, b], [g.out([2, 3, 5])], OPT.BatchMatMulOptions,
             tm.options(tfl.BatchMatMulOptionsT, adjX=False, adjY=True))
    return [y], {"input0": rand(rng, 2, 3, 4), "input1": rand(rng, 2, 5, 4)}


@case()
def pools_and_mean(g, rng):
    x = g.input([1, 9, 9, 4])
    c = conv(g, rng, x, 4, 6, 1, out_shape=[1, 9, 9, 6])
    mp = g.op(OP.MAX_POOL_2D, [c], [g.out([1, 5, 5, 6])], OPT.Pool2DOptions,
              tm.options(tfl.Pool2DOptionsT, padding=tfl.Padding.SAME, strideW=2, strideH=2, filterWidth=3, filterHeight=3))
    ap = g.op(OP.AVERAGE_POOL_2D, [mp], [g.out([1, 5, 5, 6])], OPT.Pool2DOptions,
              tm.options(tfl.Pool2DOptionsT, padding=tfl.Padding.SAME, strideW=1, strideH=1, filterWidth=3, filterHeight=3))
    m = g.op(OP.MEAN, [ap, g.const(np.array([1, 2], np.int32))], [g.out([1, 6], name="mean")], OPT.ReducerOptions,
             tm.options(tfl.ReducerOptionsT, keepDims=False))
    s = g.op(OP.SUM, [ap, g.const(np.array([3], np.int32))], [g.out([1, 5, 5, 1], name="sum")], OPT.ReducerOptions,
             tm.options(tfl.ReducerOptionsT, keepDims=True))
    return [m, s, ap], {"input0": rand(rng, 1, 9, 9, 4)}


@case()
def elementwise(g, rng):
    x = g.input([1, 6, 6, 4])
    c = conv(g, rng, x, 4, 4, 3, out_shape=[1, 6, 6, 4])
    bias = g.const(rand(rng, 4))  # broadcast over channels, in NCHW too
    a = g.op(OP.ADD, [c, bias], [g.out([1, 6, 6, 4])], OPT.AddOptions,
             tm.options(tfl.AddOptionsT, fusedActivationFunction=tfl.ActivationFunctionType.RELU_N1_TO_1))
    m = g.op(OP.MUL, [a, x], [g.out([1, 6, 6, 4])], OPT.MulOptions, tm.options(tfl.MulOptionsT))
    s = g.op(OP.SUB, [m, g.const(np.float32([0.25]))], [g.out([1, 6, 6, 4])], OPT.SubOptions, tm.options(tfl.SubOptionsT))
    h = g.op(OP.HARD_SWISH, [s], [g.out([1, 6, 6, 4])])
    lg = g.op(OP.LOGISTIC, [h], [g.out([1, 6, 6, 4])])
    p = g.op(OP.PRELU, [c, g.const(rand(rng, 1, 1, 4))], [g.out([1, 6, 6, 4])])
    d = g.op(OP.DIV, [lg, g.const(np.float32([2.0]))], [g.out([1, 6, 6, 4])], OPT.DivOptions, tm.options(tfl.DivOptionsT))
    mx = g.op(OP.MAXIMUM, [d, p], [g.out([1, 6, 6, 4])])
    lr = g.op(OP.LEAKY_RELU, [mx], [g.out([1, 6, 6, 4], name="leaky")], OPT.LeakyReluOptions,
              tm.options(tfl.LeakyReluOptionsT, alpha=0.2))
    return [lr], {"input0": rand(rng, 1, 6, 6, 4)}


@case()
def unary_math(g, rng):
    x = g.input([2, 7])
    outs = []
    for code in (OP.EXP, OP.TANH, OP.RELU, OP.RELU6, OP.ABS, OP.NEG, OP.SQUARE, OP.FLOOR, OP.CEIL, OP.SIN, OP.COS,
                 OP.ELU):
        outs.append(g.op(code, [x], [g.out([2, 7])]))
    pos = g.op(OP.ABS, [x], [g.out([2, 7])])
    for code in (OP.SQRT, OP.RSQRT, OP.LOG):
        outs.append(g.op(code, [pos], [g.out([2, 7])]))
    return outs, {"input0": rand(rng, 2, 7, lo=-3, hi=3) + 0.01}


@case()
def softmax_and_concat(g, rng):
    x = g.input([1, 5, 5, 3])
    a = conv(g, rng, x, 3, 4, 3, out_shape=[1, 5, 5, 4], name="a")
    b = conv(g, rng, x, 3, 2, 1, out_shape=[1, 5, 5, 2], name="b")
    c = g.op(OP.CONCATENATION, [a, b], [g.out([1, 5, 5, 6])], OPT.ConcatenationOptions,
             tm.options(tfl.ConcatenationOptionsT, axis=3))
    s = g.op(OP.SOFTMAX, [c], [g.out([1, 5, 5, 6], name="softmax")], OPT.SoftmaxOptions,
             tm.options(tfl.SoftmaxOptionsT, beta=0.5))
    return [s], {"input0": rand(rng, 1, 5, 5, 3)}


@case()
def reshape_transpose_squeeze(g, rng):
    x = g.input([1, 4, 6, 2])
    c = conv(g, rng, x, 2, 3, 3, out_shape=[1, 4, 6, 3])
    r = g.op(OP.RESHAPE, [c, g.const(np.array([1, 24, 3], np.int32))], [g.out([1, 24, 3], name="reshaped")])
    t = g.op(OP.TRANSPOSE, [c, g.const(np.array([0, 3, 1, 2], np.int32))], [g.out([1, 3, 4, 6], name="transposed")])
    e = g.op(OP.EXPAND_DIMS, [r, g.const(np.array([2], np.int32))], [g.out([1, 24, 1, 3])])
    s = g.op(OP.SQUEEZE, [e], [g.out([24, 3], name="squeezed")], OPT.SqueezeOptions,
             tm.options(tfl.SqueezeOptionsT, squeezeDims=[0, 2]))
    return [t, s], {"input0": rand(rng, 1, 4, 6, 2)}


@case()
def slices_pads_gather_split(g, rng):
    x = g.input([1, 8, 8, 4])
    c = conv(g, rng, x, 4, 4, 1, out_shape=[1, 8, 8, 4])
    p = g.op(OP.PAD, [c, g.const(np.array([[0, 0], [1, 2], [0, 1], [0, 0]], np.int32))], [g.out([1, 11, 9, 4])])
    p2 = g.op(OP.PADV2, [p, g.const(np.array([[0, 0], [0, 0], [0, 0], [1, 1]], np.int32)), g.const(np.float32([0.5]))],
              [g.out([1, 11, 9, 6], name="padv2")])
    sl = g.op(OP.SLICE, [p2, g.const(np.array([0, 1, 2, 1], np.int32)), g.const(np.array([-1, 5, -1, 3], np.int32))],
              [g.out([1, 5, 7, 3], name="slice")])
    ss = g.op(OP.STRIDED_SLICE, [c, g.const(np.array([0, 1, 0, 0], np.int32)), g.const(np.array([1, 8, 8, 3], np.int32)),
                                 g.const(np.array([1, 2, 3, 1], np.int32))], [g.out([1, 4, 3, 3], name="strided")],
              OPT.StridedSliceOptions, tm.options(tfl.StridedSliceOptionsT, beginMask=0b1001, endMask=0b0100))
    sh = g.op(OP.STRIDED_SLICE, [c, g.const(np.array([0, 2, 0, 0], np.int32)), g.const(np.array([1, 3, 8, 4], np.int32)),
                                 g.const(np.array([1, 1, 1, 1], np.int32))], [g.out([1, 8, 4], name="shrunk")],
              OPT.StridedSliceOptions, tm.options(tfl.StridedSliceOptionsT, shrinkAxisMask=0b0010))
    ga = g.op(OP.GATHER, [c, g.const(np.array([3, 0, 2], np.int32))], [g.out([1, 8, 8, 3], name="gathered")],
              OPT.GatherOptions, tm.options(tfl.GatherOptionsT, axis=3))
    s0, s1 = g.out([1, 8, 4, 4], name="split0"), g.out([1, 8, 4, 4], name="split1")
    g.op(OP.SPLIT, [g.const(np.array([2], np.int32)), c], [s0, s1], OPT.SplitOptions, tm.options(tfl.SplitOptionsT, numSplits=2))
    v0, v1 = g.out([1, 8, 8, 1], name="splitv0"), g.out([1, 8, 8, 3], name="splitv1")
    g.op(OP.SPLIT_V, [c, g.const(np.array([1, -1], np.int32)), g.const(np.array([3], np.int32))], [v0, v1],
         OPT.SplitVOptions, tm.options(tfl.SplitVOptionsT, numSplits=2))
    return [sl, ss, sh, ga, s0, s1, v0, v1], {"input0": rand(rng, 1, 8, 8, 4)}


@case()
def resize_and_depth_space(g, rng):
    x = g.input([1, 4, 5, 8])
    c = conv(g, rng, x, 8, 8, 1, out_shape=[1, 4, 5, 8])
    outs = []
    for code, opt_type, cls, flags, name in (
            (OP.RESIZE_BILINEAR, OPT.ResizeBilinearOptions, tfl.ResizeBilinearOptionsT, {}, "bilinear"),
            (OP.RESIZE_BILINEAR, OPT.ResizeBilinearOptions, tfl.ResizeBilinearOptionsT, {"halfPixelCenters": True},
             "bilinear_half"),
            (OP.RESIZE_BILINEAR, OPT.ResizeBilinearOptions, tfl.ResizeBilinearOptionsT, {"alignCorners": True},
             "bilinear_align"),
            (OP.RESIZE_NEAREST_NEIGHBOR, OPT.ResizeNearestNeighborOptions, tfl.ResizeNearestNeighborOptionsT, {},
             "nearest"),
            (OP.RESIZE_NEAREST_NEIGHBOR, OPT.ResizeNearestNeighborOptions, tfl.ResizeNearestNeighborOptionsT,
             {"halfPixelCenters": True}, "nearest_half")):
        outs.append(g.op(code, [c, g.const(np.array([7, 9], np.int32))], [g.out([1, 7, 9, 8], name=name)], opt_type,
                         tm.options(cls, **flags)))
    outs.append(g.op(OP.DEPTH_TO_SPACE, [c], [g.out([1, 8, 10, 2], name="d2s")], OPT.DepthToSpaceOptions,
                     tm.options(tfl.DepthToSpaceOptionsT, blockSize=2)))
    x2 = g.input([1, 4, 6, 2])
    outs.append(g.op(OP.SPACE_TO_DEPTH, [x2], [g.out([1, 2, 3, 8], name="s2d")], OPT.SpaceToDepthOptions,
                     tm.options(tfl.SpaceToDepthOptionsT, blockSize=2)))
    return outs, {"input0": rand(rng, 1, 4, 5, 8), "input1": rand(rng, 1, 4, 6, 2)}


@case()
def float16_weights(g, rng):
    # TFLite's float16 models: f16 weights, each behind a DEQUANTIZE.
    x = g.input([1, 6, 6, 3])
    w16 = g.const(rand(rng, 4, 3, 3, 3).astype(np.float16))
    w = g.op(OP.DEQUANTIZE, [w16], [g.out([4, 3, 3, 3])])
    y = g.op(OP.CONV_2D, [x, w, g.const(rand(rng, 4))], [g.out([1, 6, 6, 4])], OPT.Conv2DOptions,
             tm.options(tfl.Conv2DOptionsT, padding=tfl.Padding.SAME, strideW=1, strideH=1))
    return [y], {"input0": rand(rng, 1, 6, 6, 3)}


def mobile_block(g, rng):
    """A MobileNet-shaped network: conv, depthwise, pointwise, residual add,
    pooling, a classifier and softmax."""
    x = g.act_input([1, 16, 16, 3], "image")
    c1 = conv(g, rng, x, 3, 8, 3, stride=2, act=tfl.ActivationFunctionType.RELU6, name="stem", out_shape=[1, 8, 8, 8])
    d1 = depthwise(g, rng, c1, 8, 3, act=tfl.ActivationFunctionType.RELU6, name="dw", out_shape=[1, 8, 8, 8])
    p1 = conv(g, rng, d1, 8, 8, 1, name="project", out_shape=[1, 8, 8, 8])
    add = g.op(OP.ADD, [c1, p1], [g.act([1, 8, 8, 8], "residual")], OPT.AddOptions, tm.options(tfl.AddOptionsT))
    pool = g.op(OP.MEAN, [add, g.const(np.array([1, 2], np.int32))], [g.act([1, 8], "pooled")], OPT.ReducerOptions,
                tm.options(tfl.ReducerOptionsT, keepDims=False))
    w = g.weight(rand(rng, 10, 8), "fc_w")
    b = g.bias(rand(rng, 10, lo=-0.1, hi=0.1), "fc_b", pool, w)
    logits = g.op(OP.FULLY_CONNECTED, [pool, w, b], [g.act([1, 10], "logits")], OPT.FullyConnectedOptions,
                  tm.options(tfl.FullyConnectedOptionsT))
    probs = g.op(OP.SOFTMAX, [logits], [g.act([1, 10], "probs", fixed=(1 / 256, -128))], OPT.SoftmaxOptions,
                 tm.options(tfl.SoftmaxOptionsT, beta=1.0))
    return [logits, probs]


@case()
def mobile_net_float(g, rng):
    return mobile_block(g, rng), {"image": rand(rng, 1, 16, 16, 3)}


# ---------------------------------------------------------------- int8

def int8_case(build_float, feeds_float, g, rng_seed):
    """Calibrates the float network on its feeds and builds the int8 one
    into g; returns (outputs, int8 feeds)."""
    ranges = tm.calibrate(lambda fg: build_float(fg, np.random.default_rng(rng_seed)), feeds_float)
    g.ranges = ranges
    outputs = build_float(g, np.random.default_rng(rng_seed))
    feeds = {g.tensors[t].name: tm.quantize_input(feeds_float[g.tensors[t].name], g, t) for t in g.inputs}
    return outputs, feeds


@case(kind="int8", steps=2, report=r"fold_qdq +1 Conv -> QLinearConv")
def conv_2d_int8(g, rng):
    feeds = {"x": rand(rng, 1, 9, 9, 4)}
    def build(fg, r):
        x = fg.act_input([1, 9, 9, 4], "x")
        return [conv(fg, r, x, 4, 8, 3, stride=2, act=tfl.ActivationFunctionType.RELU, out_shape=[1, 5, 5, 8])]
    return int8_case(build, feeds, g, 5)


@case(kind="int8", steps=2, report=r"fold_qdq +1 Conv -> QLinearConv")
def depthwise_int8(g, rng):
    feeds = {"x": rand(rng, 1, 8, 8, 6)}
    def build(fg, r):
        x = fg.act_input([1, 8, 8, 6], "x")
        return [depthwise(fg, r, x, 6, 3, act=tfl.ActivationFunctionType.RELU6, out_shape=[1, 8, 8, 6])]
    return int8_case(build, feeds, g, 6)


@case(kind="int8", steps=3, report=r"fold_qdq +1 Add -> QLinearAdd, 3 Conv -> QLinearConv, 1 Gemm -> QLinearMatMul")
def mobile_net_int8(g, rng):
    feeds = {"image": rand(rng, 1, 16, 16, 3)}
    return int8_case(mobile_block, feeds, g, 7)


@case(kind="int8", steps=1)
def quantize_dequantize(g, rng):
    x = g.input([2, 9])
    q = g.op(OP.QUANTIZE, [x], [g.out([2, 9], tm.INT8, name="q", scale=0.02, zero_point=3)])
    r = g.op(OP.QUANTIZE, [q], [g.out([2, 9], tm.INT8, name="requantized", scale=0.03, zero_point=-5)])
    d = g.op(OP.DEQUANTIZE, [r], [g.out([2, 9], name="dequantized")])
    return [q, d], {"input0": rand(rng, 2, 9, lo=-2, hi=2)}


# ---------------------------------------------------------------- errors

MESSAGES = {
    # name: (file bytes, what mote-convert must say)
    "truncated": (lambda m: m[: len(m) // 2], "damaged"),
    "garbage_after_identifier": (lambda m: m[:8] + bytes(range(256)) * 4, "damaged"),
}


def misplaced_channel_scales():
    """The int8 Conv case with its per-channel weight scales declared along
    an axis whose length is not the number of scales (a mutation the fuzzer
    found reading past the weight's shape)."""
    g = tm.QuantGraph()
    outputs, _ = CASES["conv_2d_int8"][0](g, np.random.default_rng(5))
    for t in g.tensors:
        if t.quantization is not None and len(t.quantization.scale) > 1:
            t.quantization.quantizedDimension = 9
    return g.serialize(outputs)


def check_messages(args, work):
    """mote-convert refuses broken or unsupported models with a message
    naming the problem (and never crashes)."""
    problems = []
    g = tm.QuantGraph()
    outputs, _ = CASES["mobile_net_float"][0](g, np.random.default_rng(1))
    good = g.serialize(outputs)
    cases = {k: (fn(good), text) for k, (fn, text) in MESSAGES.items()}
    cases["unsupported_op"] = (tm.with_custom_op(), "no mapper for these TFLite operators: CUSTOM:MyOp (1)")
    cases["misplaced_channel_scales"] = (misplaced_channel_scales(), "8 quantisation scales along dimension 9")
    for name, (data, text) in cases.items():
        path = os.path.join(work, f"bad_{name}.tflite")
        with open(path, "wb") as f:
            f.write(data)
        proc = subprocess.run([args.convert, path, path + ".mote"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        if proc.returncode != 1 or text not in proc.stderr:
            problems.append(f"{name}: exit {proc.returncode}, expected 1 and {text!r} in:\n{proc.stderr}")
    return problems


# ---------------------------------------------------------------- driver

def mote_outputs(args, mote_path, backend, feeds, outdir):
    os.makedirs(outdir, exist_ok=True)
    cmd = [args.run, mote_path, "--backend", backend, "--output-dir", outdir, "--repeat", "0", "--warmup", "0"]
    for name, value in feeds.items():
        path = os.path.join(outdir, f"in_{name}.npy")
        np.save(path, value)
        cmd += ["--input", f"{name}={path}"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return {f[:-4]: np.load(os.path.join(outdir, f)) for f in os.listdir(outdir)
            if f.endswith(".npy") and not f.startswith("in_")}


def compare(name, want, got, kind, steps, args):
    """'' when got matches want, else why not."""
    if got is None:
        return f"{name}: Mote wrote no output of that name"
    if got.shape != want.shape:
        return f"{name}: shape {got.shape}, LiteRT's {want.shape}"
    if got.dtype != want.dtype:
        return f"{name}: dtype {got.dtype}, LiteRT's {want.dtype}"
    if np.issubdtype(want.dtype, np.integer):
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        worst = int(diff.max()) if diff.size else 0
        return "" if worst <= steps else f"{name}: {worst} quantisation steps off (allowed {steps})"
    diff = np.abs(got.astype(np.float64) - want)
    bad = diff > args.atol + args.rtol * np.abs(want)
    return "" if not bad.any() else f"{name}: {int(bad.sum())} elements off, max |diff| {diff.max():.3g}"


def run_case(args, name, work):
    build, kind, steps, report = CASES[name]
    g = tm.QuantGraph()
    outputs, feeds = build(g, np.random.default_rng(zlib.crc32(name.encode())))
    model = g.serialize(outputs)
    path = os.path.join(work, name + ".tflite")
    with open(path, "wb") as f:
        f.write(model)
    want = tm.run_litert(model, feeds)
    mote_path = os.path.join(work, name + ".mote")
    # --check runs LiteRT itself on random inputs (int8: `steps` apart at most).
    tolerance = ["--atol", str(steps), "--rtol", "0"] if kind == "int8" else []
    proc = subprocess.run([args.convert, path, mote_path, "--check"] + tolerance, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or "against LiteRT" not in proc.stdout:
        return [f"mote-convert --check failed:\n{proc.stdout}{proc.stderr}"]
    if report and not re.search(report, proc.stdout):
        return [f"mote-convert's report lacks {report!r}:\n{proc.stdout}"]
    problems = []
    for backend in args.backends.split(","):
        try:
            got = mote_outputs(args, mote_path, backend, feeds, os.path.join(work, name + "_" + backend))
        except RuntimeError as e:
            problems.append(f"{backend}: mote-run failed: {e}")
            continue
        for out_name, value in want.items():
            p = compare(out_name, value, got.get(out_name), kind, steps, args)
            if p:
                problems.append(f"{backend}: {p}")
    return problems


def write_models(folder):
    os.makedirs(folder, exist_ok=True)
    for name, (build, _, _, _) in CASES.items():
        g = tm.QuantGraph()
        outputs, _ = build(g, np.random.default_rng(zlib.crc32(name.encode())))
        with open(os.path.join(folder, name + ".tflite"), "wb") as f:
            f.write(g.serialize(outputs))
    print(f"tflite_test.py: wrote {len(CASES)} models to {folder}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--convert")
    ap.add_argument("--run")
    ap.add_argument("--backends", default="cpu")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--keep", help="write the models and outputs here and keep them")
    ap.add_argument("--write-models", metavar="DIR", help="only write every case's .tflite into DIR (fuzzing seeds)")
    args = ap.parse_args()
    if args.write_models:
        return write_models(args.write_models)
    if not args.convert or not args.run:
        ap.error("--convert and --run are required")
    work = args.keep or tempfile.mkdtemp(prefix="mote_tflite_")
    os.makedirs(work, exist_ok=True)
    failed = 0
    try:
        for name in args.cases.split(","):
            if name not in CASES:
                sys.exit(f"tflite_test.py: no case {name!r}; cases: {', '.join(CASES)}")
            problems = run_case(args, name, work)
            print(f"{'ok  ' if not problems else 'FAIL'} {name}")
            for p in problems:
                print("     " + p.replace("\n", "\n     "))
            failed += bool(problems)
        problems = check_messages(args, work)
        print(f"{'ok  ' if not problems else 'FAIL'} messages")
        for p in problems:
            print("     " + p.replace("\n", "\n     "))
        failed += bool(problems)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"tflite_test.py: {len(args.cases.split(',')) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
