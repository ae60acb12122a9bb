#!/usr/bin/env python3
"""Writes small ONNX models that exercise mote-convert end to end.

Each model is built with onnx.helper and random weights (fixed seed), so the
test needs no downloads. Used by check_models.sh, which converts each with
--check against onnxruntime.

  cnn.onnx          Conv-BN-Relu blocks, residual Add, pooling, Gemm, Softmax
  transformer.onnx  dynamic batch; LayerNorm, attention with Shape->Gather->
                    Concat->Reshape chains, Erf-GELU, SiLU
  legacy9.onnx      opset 9 forms: Upsample, Slice/Pad/Clip attributes,
                    2-D Softmax, BatchNormalization-9
  external/model.onnx  weights in an external data file
  long_chain.onnx   1500 nodes, to show progress output
  quantized.onnx    QLinearConv (per-channel int8 weights, bias) and ConvInteger
  qdq.onnx          cnn.onnx quantised by onnxruntime's quantize_static in the
                    QDQ format (per-channel int8 weights, uint8 activations)
  qdq_mixed.onnx    mixed_cnn.onnx (residual Add, Mul, Concat, MaxPool,
                    AveragePool, nearest Resize, GlobalAveragePool) quantised
                    the same way: the ops around the Convs fold too
  qop.onnx, qop_mixed.onnx  cnn.onnx and mixed_cnn.onnx quantised in the
                    QOperator format (onnxruntime's com.microsoft QLinearAdd,
                    QLinearMul, QLinearConcat, QLinearAveragePool,
                    QLinearGlobalAveragePool, QGemm, QLinearSoftmax)
  qdq_transformer.onnx  transformer.onnx quantised the same way (its linear
                    layers' MatMuls fold into QLinearMatMul)
  dynamic_transformer.onnx  transformer.onnx quantised by quantize_dynamic
                    (DynamicQuantizeLinear -> MatMulInteger per linear layer)
  shape_chain.onnx  dynamic batch; Shape and Size of an intermediate tensor
                    (not a graph input) feeding a Reshape, and int64 scalar
                    outputs; shape_chain_x3.npy is a batch-3 input for it

Usage: make_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)


def weight(name, *shape, scale=0.3):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def positive(name, *shape):
    return numpy_helper.from_array(RNG.uniform(0.5, 1.5, shape).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(model, path, **kwargs):
    onnx.checker.check_model(model)
    onnx.save(model, path, **kwargs)


def conv_bn_relu(nodes, inits, x, cin, cout, name, stride=1, act="Relu"):
    inits += [weight(f"{name}_w", cout, cin, 3, 3), weight(f"{name}_b", cout),
              positive(f"{name}_gamma", cout), weight(f"{name}_beta", cout),
              weight(f"{name}_mean", cout), positive(f"{name}_var", cout)]
    nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [f"{name}_c"], name=f"{name}_conv",
                                  pads=[1, 1, 1, 1], strides=[stride, stride]))
    nodes.append(helper.make_node("BatchNormalization",
                                  [f"{name}_c", f"{name}_gamma", f"{name}_beta", f"{name}_mean", f"{name}_var"],
                                  [f"{name}_n"], name=f"{name}_bn", epsilon=1e-3))
    if act is None:
        return f"{name}_n"
    nodes.append(helper.make_node(act, [f"{name}_n"], [f"{name}_y"], name=f"{name}_act"))
    return f"{name}_y"


def cnn():
    nodes, inits = [], []
    x = conv_bn_relu(nodes, inits, "image", 3, 8, "stem", stride=2)
    y = conv_bn_relu(nodes, inits, x, 8, 8, "block1a")
    y = conv_bn_relu(nodes, inits, y, 8, 8, "block1b", act=None)
    nodes.append(helper.make_node("Add", [x, y], ["res"], name="residual"))
    nodes.append(helper.make_node("HardSwish", ["res"], ["res_act"], name="res_act"))
    nodes.append(helper.make_node("MaxPool", ["res_act"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]))
    z = conv_bn_relu(nodes, inits, "pooled", 8, 16, "block2")
    nodes.append(helper.make_node("GlobalAveragePool", [z], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
    inits += [weight("fc_w", 10, 16), weight("fc_b", 10)]
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1))
    nodes.append(helper.make_node("Softmax", ["logits"], ["probs"], axis=-1))
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def mixed_cnn():
    """The ops a quantised CNN has between its Convs: a residual Add (and a
    Relu after it), a product of two branches, a Concat of three (one
    through a MaxPool), an AveragePool, a nearest upsampling and the
    classifier's GlobalAveragePool."""
    nodes, inits = [], []
    x = conv_bn_relu(nodes, inits, "image", 3, 8, "stem", stride=2)
    y = conv_bn_relu(nodes, inits, x, 8, 8, "branch", act=None)
    nodes.append(helper.make_node("Add", [x, y], ["res"], name="residual"))
    nodes.append(helper.make_node("Relu", ["res"], ["res_relu"], name="res_relu"))
    g = conv_bn_relu(nodes, inits, "res_relu", 8, 8, "gate")
    nodes.append(helper.make_node("Mul", ["res_relu", g], ["gated"], name="gated"))
    nodes.append(helper.make_node("MaxPool", ["gated"], ["small"], kernel_shape=[2, 2], strides=[2, 2], name="pool"))
    nodes.append(helper.make_node("AveragePool", ["small"], ["smooth"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                  name="smooth"))
    inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up_scales"))
    nodes.append(helper.make_node("Resize", ["smooth", "", "up_scales"], ["up"], mode="nearest", name="up"))
    nodes.append(helper.make_node("MaxPool", ["up"], ["down"], kernel_shape=[2, 2], strides=[2, 2], name="down"))
    z = conv_bn_relu(nodes, inits, "small", 8, 8, "side")
    nodes.append(helper.make_node("Concat", ["small", "down", z], ["joined"], axis=1, name="join"))
    w = conv_bn_relu(nodes, inits, "joined", 24, 16, "head")
    nodes.append(helper.make_node("GlobalAveragePool", [w], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
    inits += [weight("fc_w", 10, 16), weight("fc_b", 10)]
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1))
    graph = helper.make_graph(nodes, "mixed_cnn",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def transformer():
    d, heads = 16, 2
    nodes, inits = [], []
    inits += [positive("ln_scale", d), weight("ln_bias", d), ints("zero", [0]), ints("one", [1]),
              ints("heads_dims", [heads, d // heads]), ints("model_dim", [d]),
              numpy_helper.from_array(np.array(np.sqrt(d // heads), dtype=np.float32), "sqrt_dk"),
              numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half"),
              numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one_f"),
              numpy_helper.from_array(np.array(1 / np.sqrt(2), dtype=np.float32), "inv_sqrt2")]
    # (Its output is not named "ln": onnxruntime's quantiser names the
    # output's scale "<output>_scale", which would clash with ln_scale.)
    nodes.append(helper.make_node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["normed"], axis=-1,
                                  epsilon=1e-5))
    # [B, T] of the input, computed from its shape: the batch is dynamic.
    nodes.append(helper.make_node("Shape", ["x"], ["x_shape"]))
    nodes.append(helper.make_node("Gather", ["x_shape", "zero"], ["batch"], axis=0))
    nodes.append(helper.make_node("Gather", ["x_shape", "one"], ["time"], axis=0))
    nodes.append(helper.make_node("Concat", ["batch", "time", "heads_dims"], ["split_shape"], axis=0))
    nodes.append(helper.make_node("Concat", ["batch", "time", "model_dim"], ["merge_shape"], axis=0))
    for p in "qkv":
        inits.append(weight(f"w{p}", d, d))
        nodes.append(helper.make_node("MatMul", ["normed", f"w{p}"], [f"{p}_flat"]))
        nodes.append(helper.make_node("Reshape", [f"{p}_flat", "split_shape"], [f"{p}_split"]))
        perm = [0, 2, 3, 1] if p == "k" else [0, 2, 1, 3]
        nodes.append(helper.make_node("Transpose", [f"{p}_split"], [f"{p}_heads"], perm=perm))
    nodes.append(helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores_raw"]))
    nodes.append(helper.make_node("Div", ["scores_raw", "sqrt_dk"], ["scores"]))
    nodes.append(helper.make_node("Softmax", ["scores"], ["attn"], axis=-1))
    nodes.append(helper.make_node("MatMul", ["attn", "v_heads"], ["ctx_heads"]))
    nodes.append(helper.make_node("Transpose", ["ctx_heads"], ["ctx_t"], perm=[0, 2, 1, 3]))
    nodes.append(helper.make_node("Reshape", ["ctx_t", "merge_shape"], ["ctx"]))
    nodes.append(helper.make_node("Add", ["x", "ctx"], ["h"]))
    # MLP: GELU written with Erf (as exporters do before opset 20), then SiLU.
    inits += [weight("w1", d, 2 * d), weight("b1", 2 * d), weight("w2", 2 * d, d), weight("b2", d)]
    nodes.append(helper.make_node("MatMul", ["h", "w1"], ["m1"]))
    nodes.append(helper.make_node("Add", ["m1", "b1"], ["m1b"]))
    nodes.append(helper.make_node("Mul", ["m1b", "inv_sqrt2"], ["g0"]))
    nodes.append(helper.make_node("Erf", ["g0"], ["g1"]))
    nodes.append(helper.make_node("Add", ["g1", "one_f"], ["g2"]))
    nodes.append(helper.make_node("Mul", ["m1b", "g2"], ["g3"]))
    nodes.append(helper.make_node("Mul", ["g3", "half"], ["gelu"]))
    nodes.append(helper.make_node("MatMul", ["gelu", "w2"], ["m2"]))
    nodes.append(helper.make_node("Sigmoid", ["m2"], ["m2_sig"]))
    nodes.append(helper.make_node("Mul", ["m2", "m2_sig"], ["silu"]))
    nodes.append(helper.make_node("Add", ["silu", "b2"], ["mlp"]))
    nodes.append(helper.make_node("Add", ["h", "mlp"], ["out"]))
    graph = helper.make_graph(nodes, "transformer",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, d])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", 8, d])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def legacy9():
    nodes, inits = [], []
    inits += [positive("gamma", 4), weight("beta", 4), weight("mean", 4), positive("var", 4),
              numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")]
    nodes.append(helper.make_node("Upsample", ["x", "scales"], ["up"], mode="nearest"))
    nodes.append(helper.make_node("BatchNormalization", ["up", "gamma", "beta", "mean", "var"], ["bn"], epsilon=1e-5))
    nodes.append(helper.make_node("Clip", ["bn"], ["clipped"], min=-0.5, max=0.8))
    nodes.append(helper.make_node("Pad", ["clipped"], ["padded"], pads=[0, 0, 1, 1, 0, 0, 1, 1], value=0.25))
    nodes.append(helper.make_node("Slice", ["padded"], ["sliced"], starts=[1, 1], ends=[9, 7], axes=[2, 3]))
    nodes.append(helper.make_node("Softmax", ["sliced"], ["y"], axis=1))
    graph = helper.make_graph(nodes, "legacy9", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 6])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])


def external():
    inits = [weight("w", 64, 64), weight("b", 64)]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(nodes, "external", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def long_chain(n=1500):
    inits = [weight("c", 8)]
    nodes, prev = [], "x"
    for i in range(n):
        op = ["Add", "Mul", "Relu"][i % 3]
        inputs = [prev] if op == "Relu" else [prev, "c"]
        nodes.append(helper.make_node(op, inputs, [f"t{i}"]))
        prev = f"t{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    graph = helper.make_graph(nodes, "long_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def shape_chain():
    # The runtime folds Shape/Size once their input's shape is known; here
    # that input is an intermediate tensor, not a graph input.
    inits = [ints("one", 1), ints("two", 2), ints("axis0", [0]), ints("four", [4]), ints("three", [3])]
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),
             helper.make_node("Shape", ["t"], ["t_shape"]),
             helper.make_node("Gather", ["t_shape", "one"], ["batch"], axis=0),
             helper.make_node("Size", ["t"], ["count"]),
             helper.make_node("Mul", ["batch", "two"], ["batch2"]),
             helper.make_node("Unsqueeze", ["batch2", "axis0"], ["batch2_1d"]),
             helper.make_node("Concat", ["four", "batch2_1d", "three"], ["new_shape"], axis=0),
             helper.make_node("Reshape", ["t", "new_shape"], ["y"])]
    graph = helper.make_graph(nodes, "shape_chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, None, 3]),
                               helper.make_tensor_value_info("batch", TensorProto.INT64, []),
                               helper.make_tensor_value_info("count", TensorProto.INT64, [])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def quantized():
    """QuantizeLinear -> QLinearConv (int8 weights, per-channel scales, bias)
    -> DequantizeLinear, QLinearMatMul over the quantised input's rows (u8 x
    i8 per column, 4-D A against a 2-D B), MatMulInteger over the input's
    bytes tiled to a depth of 1,890 (u8 x u8, sums past 2^24, where float
    sums would round), and ConvInteger (u8 weights with a zero point)
    beside them: Mote's integer ops all."""
    cin, cout = 3, 4
    w_i8 = RNG.integers(-100, 100, (cout, cin, 3, 3)).astype(np.int8)
    w_u8 = RNG.integers(0, 255, (cout, cin, 3, 3)).astype(np.uint8)
    inits = [
        numpy_helper.from_array(np.array(0.02, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zp"),
        numpy_helper.from_array(w_i8, "w_i8"),
        numpy_helper.from_array(RNG.uniform(0.002, 0.01, cout).astype(np.float32), "w_scale"),
        numpy_helper.from_array(np.zeros(cout, np.int8), "w_zp"),
        numpy_helper.from_array(np.array(0.05, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(120, np.uint8), "y_zp"),
        numpy_helper.from_array(RNG.integers(-500, 500, cout).astype(np.int32), "bias"),
        numpy_helper.from_array(w_u8, "w_u8"),
        numpy_helper.from_array(np.array(131, np.uint8), "w_u8_zp"),
        numpy_helper.from_array(RNG.integers(-128, 128, (7, 5)).astype(np.int8), "mm_b"),
        numpy_helper.from_array(RNG.uniform(0.002, 0.01, 5).astype(np.float32), "mm_b_scale"),
        numpy_helper.from_array(RNG.integers(-10, 10, 5).astype(np.int8), "mm_b_zp"),
        numpy_helper.from_array(np.array(0.03, np.float32), "mm_y_scale"),
        numpy_helper.from_array(np.array(125, np.uint8), "mm_y_zp"),
        numpy_helper.from_array(np.array([1, 189], np.int64), "row_shape"),
        numpy_helper.from_array(np.array([1, 10], np.int64), "repeats"),
        numpy_helper.from_array(RNG.integers(200, 256, (1890, 3)).astype(np.uint8), "mi_b"),
        numpy_helper.from_array(np.array(0, np.uint8), "mi_a_zp"),
        numpy_helper.from_array(np.array([0, 3, 250], np.uint8), "mi_b_zp"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"]),
        helper.make_node("QLinearConv", ["xq", "x_scale", "x_zp", "w_i8", "w_scale", "w_zp", "y_scale", "y_zp", "bias"],
                         ["yq"], pads=[1, 1, 1, 1], strides=[2, 1]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y"]),
        helper.make_node("ConvInteger", ["xq", "w_u8", "x_zp", "w_u8_zp"], ["acc"], pads=[0, 1, 0, 1]),
        helper.make_node("Cast", ["acc"], ["acc_f32"], to=TensorProto.FLOAT),
        helper.make_node("QLinearMatMul", ["xq", "x_scale", "x_zp", "mm_b", "mm_b_scale", "mm_b_zp", "mm_y_scale",
                                           "mm_y_zp"], ["mmq"]),
        helper.make_node("DequantizeLinear", ["mmq", "mm_y_scale", "mm_y_zp"], ["mm"]),
        helper.make_node("Reshape", ["xq", "row_shape"], ["xq_row"]),
        helper.make_node("Tile", ["xq_row", "repeats"], ["xq_long"]),
        helper.make_node("MatMulInteger", ["xq_long", "mi_b", "mi_a_zp", "mi_b_zp"], ["mi"]),
    ]
    graph = helper.make_graph(nodes, "quantized", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, 9, 7])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, 5, 7]),
                               helper.make_tensor_value_info("acc_f32", TensorProto.FLOAT, [1, cout, 7, 7]),
                               helper.make_tensor_value_info("mm", TensorProto.FLOAT, [1, cin, 9, 5]),
                               helper.make_tensor_value_info("mi", TensorProto.INT32, [1, 3])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def qdq(float_path, out_path, name="image", shape=(1, 3, 32, 32), operators=False):
    """A float model quantised by onnxruntime's own tool in the QDQ format
    (int8 weights per channel, uint8 activations calibrated on 8 random
    inputs of `shape`): DequantizeLinear/QuantizeLinear pairs around float
    ops, which mote-convert folds into QLinearConv and QLinearMatMul. With
    `operators`, the QOperator format instead: onnxruntime's com.microsoft
    int8 operators (QLinearAdd, QLinearConcat, QGemm...)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Images(CalibrationDataReader):
        def __init__(self):
            self.left = [{name: RNG.uniform(-1, 1, shape).astype(np.float32)} for _ in range(8)]

        def get_next(self):
            return self.left.pop() if self.left else None

    # The pre-processing onnxruntime recommends: BatchNormalization folded
    # into the Convs first, as in any model quantised for deployment.
    prepared = out_path + ".prepared.onnx"
    quant_pre_process(float_path, prepared)
    quantize_static(prepared, out_path, Images(), quant_format=QuantFormat.QOperator if operators else QuantFormat.QDQ,
                    per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def dynamic(float_path, out_path):
    """A float model quantised by onnxruntime's quantize_dynamic (int8
    weights; each activation quantised per run by DynamicQuantizeLinear
    and multiplied by MatMulInteger)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(float_path, out_path, weight_type=QuantType.QInt8)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "external"), exist_ok=True)
    for name, build in [("cnn", cnn), ("mixed_cnn", mixed_cnn), ("transformer", transformer), ("legacy9", legacy9), ("long_chain", long_chain),
                        ("shape_chain", shape_chain), ("quantized", quantized)]:
        m = build()
        m.ir_version = 8
        save(m, os.path.join(out, f"{name}.onnx"))
    qdq(os.path.join(out, "cnn.onnx"), os.path.join(out, "qdq.onnx"))
    qdq(os.path.join(out, "mixed_cnn.onnx"), os.path.join(out, "qdq_mixed.onnx"))
    qdq(os.path.join(out, "cnn.onnx"), os.path.join(out, "qop.onnx"), operators=True)
    qdq(os.path.join(out, "mixed_cnn.onnx"), os.path.join(out, "qop_mixed.onnx"), operators=True)
    qdq(os.path.join(out, "transformer.onnx"), os.path.join(out, "qdq_transformer.onnx"), "x", (1, 8, 16))
    dynamic(os.path.join(out, "transformer.onnx"), os.path.join(out, "dynamic_transformer.onnx"))
    np.save(os.path.join(out, "shape_chain_x3.npy"), RNG.standard_normal((3, 4, 6)).astype(np.float32))
    m = external()
    m.ir_version = 8
    save(m, os.path.join(out, "external", "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
         location="weights.bin", size_threshold=0)


if __name__ == "__main__":
    main()
