"""Builds small TFLite models for the TFLite converter's tests.

Models are written with LiteRT's own schema module (ai_edge_litert's
schema_py_generated, from pip), not with Mote's converters/tflite/tflite.fbs,
so a field or union number our schema gets wrong shows up as a failed test.
Quantised models take their activation ranges from a float run of the same
graph in the LiteRT interpreter (every intermediate kept), as a converter's
calibration would.
"""
import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as tfl

FLOAT32, INT32, UINT8, INT8 = tfl.TensorType.FLOAT32, tfl.TensorType.INT32, tfl.TensorType.UINT8, tfl.TensorType.INT8
OP = tfl.BuiltinOperator
OPT = tfl.BuiltinOptions
NP_TYPES = {FLOAT32: np.float32, INT32: np.int32, UINT8: np.uint8, INT8: np.int8, tfl.TensorType.FLOAT16: np.float16,
            tfl.TensorType.INT64: np.int64}


def options(cls, **fields):
    """An options object (tfl.Conv2DOptionsT...) with the given fields set."""
    o = cls()
    for k, v in fields.items():
        setattr(o, k, v)
    return o


class Graph:
    """One subgraph under construction; tensors are referred to by index."""

    def __init__(self):
        self.tensors, self.buffers, self.ops, self.codes = [], [tfl.BufferT()], [], []
        self.inputs, self.outputs = [], []

    def tensor(self, shape, dtype=FLOAT32, data=None, name=None, scale=None, zero_point=None, axis=0):
        t = tfl.TensorT()
        t.shape = list(shape)
        t.type = dtype
        t.name = name or f"t{len(self.tensors)}"
        t.buffer = 0
        if data is not None:
            b = tfl.BufferT()
            b.data = np.ascontiguousarray(np.asarray(data, dtype=NP_TYPES[dtype])).tobytes()
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        if scale is not None:
            q = tfl.QuantizationParametersT()
            q.scale = list(np.atleast_1d(scale).astype(np.float32))
            q.zeroPoint = list(np.atleast_1d(zero_point if zero_point is not None else 0).astype(np.int64))
            if len(q.zeroPoint) < len(q.scale):
                q.zeroPoint = q.zeroPoint * len(q.scale)
            q.quantizedDimension = axis
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def const(self, array, dtype=None, **quant):
        array = np.asarray(array)
        if dtype is None:
            dtype = {np.dtype(np.float32): FLOAT32, np.dtype(np.int32): INT32, np.dtype(np.float16): tfl.TensorType.FLOAT16,
                     np.dtype(np.int8): INT8, np.dtype(np.uint8): UINT8, np.dtype(np.int64): tfl.TensorType.INT64}[array.dtype]
        return self.tensor(array.shape, dtype, data=array, **quant)

    def input(self, shape, dtype=FLOAT32, name=None, **quant):
        t = self.tensor(shape, dtype, name=name or f"input{len(self.inputs)}", **quant)
        self.inputs.append(t)
        return t

    def op(self, code, inputs, outputs, opt_type=OPT.NONE, opt=None):
        if code not in self.codes:
            self.codes.append(code)
        o = tfl.OperatorT()
        o.opcodeIndex = self.codes.index(code)
        o.inputs, o.outputs = list(inputs), list(outputs)
        o.builtinOptionsType, o.builtinOptions = opt_type, opt
        self.ops.append(o)
        return outputs[0] if len(outputs) == 1 else outputs

    def out(self, shape, dtype=FLOAT32, name=None, **quant):
        return self.tensor(shape, dtype, name=name, **quant)

    def custom_op(self, custom_code, inputs, outputs):
        """An operator LiteRT would look up by name (BuiltinOperator CUSTOM)."""
        self.custom_codes = getattr(self, "custom_codes", {})
        key = ("custom", custom_code)
        if key not in self.codes:
            self.codes.append(key)
        o = tfl.OperatorT()
        o.opcodeIndex = self.codes.index(key)
        o.inputs, o.outputs = list(inputs), list(outputs)
        self.ops.append(o)
        return outputs[0]

    def serialize(self, outputs):
        self.outputs = list(outputs)
        sg = tfl.SubGraphT()
        sg.tensors, sg.inputs, sg.outputs, sg.operators = self.tensors, self.inputs, self.outputs, self.ops
        sg.name = "main"
        m = tfl.ModelT()
        m.version = 3
        m.description = "built by converters/tests/tflite_models.py"
        m.subgraphs = [sg]
        m.buffers = self.buffers
        m.operatorCodes = []
        for code in self.codes:
            oc = tfl.OperatorCodeT()
            if isinstance(code, tuple):  # a custom operator
                oc.builtinCode = oc.deprecatedBuiltinCode = OP.CUSTOM
                oc.customCode = code[1]
            else:
                oc.builtinCode = code
                oc.deprecatedBuiltinCode = min(code, 127)
            oc.version = 1
            m.operatorCodes.append(oc)
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def with_custom_op():
    """A float model whose first operator is the custom "MyOp"."""
    g = Graph()
    x = g.input([1, 4])
    y = g.custom_op("MyOp", [x], [g.out([1, 4])])
    z = g.op(OP.RELU, [y], [g.out([1, 4])])
    return g.serialize([z])


def run_litert(model_bytes, feeds, keep_all=False):
    """Outputs by name from LiteRT's interpreter, and with keep_all every
    tensor's value by index."""
    import warnings
    from ai_edge_litert.interpreter import Interpreter
    with warnings.catch_warnings():  # keep_all is meant for debugging, as here (calibration)
        warnings.simplefilter("ignore")
        interp = Interpreter(model_content=model_bytes, experimental_preserve_all_tensors=keep_all)
    interp.allocate_tensors()
    for d in interp.get_input_details():
        interp.set_tensor(d["index"], feeds[d["name"]])
    interp.invoke()
    outs = {d["name"]: interp.get_tensor(d["index"]).copy() for d in interp.get_output_details()}
    if not keep_all:
        return outs
    everything = {}
    for d in interp.get_tensor_details():
        try:
            everything[d["index"]] = interp.get_tensor(d["index"]).copy()
        except ValueError:
            pass
    return outs, everything


class QuantGraph(Graph):
    """A Graph whose activations, weights and biases are float32, or int8
    when `ranges` (tensor name -> (min, max) from a float run) is given:
    activations per tensor (asymmetric), weights per output channel
    (symmetric), biases int32 at input scale x weight scale, as TFLite's own
    converter quantises."""

    def __init__(self, ranges=None):
        super().__init__()
        self.ranges = ranges

    def _act_quant(self, name):
        lo, hi = self.ranges[name]
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        scale = max((hi - lo) / 255.0, 1e-8)
        zp = int(np.clip(round(-128 - lo / scale), -128, 127))
        return dict(scale=scale, zero_point=zp)

    def act(self, shape, name, like=None, fixed=None, range_of=None):
        """An activation tensor; `like` copies another tensor's scale (ops
        TFLite requires to keep it: pooling, reshape...), `fixed` gives one
        (softmax and logistic outputs: 1/256, -128), `range_of` names the
        float model's tensor whose range it takes (default: its own name)."""
        if self.ranges is None:
            return self.tensor(shape, FLOAT32, name=name)
        if like is not None:
            q = self.tensors[like].quantization
            quant = dict(scale=q.scale[0], zero_point=q.zeroPoint[0])
        elif fixed is not None:
            quant = dict(scale=fixed[0], zero_point=fixed[1])
        else:
            quant = self._act_quant(range_of or name)
        return self.tensor(shape, INT8, name=name, **quant)

    def act_input(self, shape, name):
        t = self.act(shape, name)
        self.inputs.append(t)
        return t

    def weight(self, array, name, axis=None):
        """Float weights, or int8 with one scale per slice of `axis` (None:
        one scale)."""
        array = np.asarray(array, np.float32)
        if self.ranges is None:
            return self.tensor(array.shape, FLOAT32, data=array, name=name)
        if axis is None:
            scale = np.array([max(np.abs(array).max() / 127.0, 1e-8)], np.float32)
            q = np.clip(np.round(array / scale[0]), -127, 127).astype(np.int8)
        else:
            moved = np.moveaxis(array, axis, 0).reshape(array.shape[axis], -1)
            scale = np.maximum(np.abs(moved).max(axis=1) / 127.0, 1e-8).astype(np.float32)
            shape = [1] * array.ndim
            shape[axis] = -1
            q = np.clip(np.round(array / scale.reshape(shape)), -127, 127).astype(np.int8)
        self._scales = getattr(self, "_scales", {})
        t = self.tensor(array.shape, INT8, data=q, name=name, scale=scale, zero_point=np.zeros_like(scale, np.int64),
                        axis=axis or 0)
        self._scales[t] = scale
        return t

    def bias(self, array, name, x, w):
        """Float bias, or int32 at scale(x) * scale(w) per channel."""
        array = np.asarray(array, np.float32)
        if self.ranges is None:
            return self.tensor(array.shape, FLOAT32, data=array, name=name)
        scale = (np.float32(self.tensors[x].quantization.scale[0]) * self._scales[w]).astype(np.float32)
        scale = np.broadcast_to(scale, array.shape).astype(np.float32)
        q = np.round(array / scale).astype(np.int32)
        return self.tensor(array.shape, INT32, data=q, name=name, scale=scale, zero_point=np.zeros(len(scale), np.int64))


def calibrate(build, feeds):
    """Ranges of every tensor of the float model `build(QuantGraph())`
    on `feeds`, by name."""
    g = QuantGraph()
    outputs = build(g)
    _, values = run_litert(g.serialize(outputs), feeds, keep_all=True)
    return {g.tensors[i].name: (float(v.min()), float(v.max())) for i, v in values.items() if v.size}


def quantize_input(x, g, t):
    q = g.tensors[t].quantization
    return np.clip(np.round(x / q.scale[0]) + q.zeroPoint[0], -128, 127).astype(np.int8)


def mobilenet_v2(g, rng, size=224, classes=1000):
    """MobileNetV2 (width 1.0) with random He-initialised weights: the stem,
    17 inverted-residual blocks, the 1280-channel head, global mean, the
    classifier and softmax. With g.ranges set (QuantGraph) it is the int8
    model TFLite's converter makes: float input and output, QUANTIZE after the
    input and DEQUANTIZE before each output."""
    relu6 = tfl.ActivationFunctionType.RELU6
    quant = g.ranges is not None
    image = g.input([1, size, size, 3], name="image")
    x = g.op(OP.QUANTIZE, [image], [g.act([1, size, size, 3], "image_q", range_of="image")]) if quant else image

    def he(*shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def conv(x, cin, cout, k, stride, act, name, hw):
        w = g.weight(he(cout, k, k, cin, fan_in=k * k * cin), name + "_w", axis=0)
        b = g.bias(np.zeros(cout, np.float32), name + "_b", x, w)
        y = g.act([1, hw, hw, cout], name)
        return g.op(OP.CONV_2D, [x, w, b], [y], OPT.Conv2DOptions,
                    options(tfl.Conv2DOptionsT, padding=tfl.Padding.SAME, strideW=stride, strideH=stride,
                            fusedActivationFunction=act, dilationWFactor=1, dilationHFactor=1))

    def depthwise(x, c, stride, name, hw):
        w = g.weight(he(1, 3, 3, c, fan_in=9), name + "_w", axis=3)
        b = g.bias(np.zeros(c, np.float32), name + "_b", x, w)
        y = g.act([1, hw, hw, c], name)
        return g.op(OP.DEPTHWISE_CONV_2D, [x, w, b], [y], OPT.DepthwiseConv2DOptions,
                    options(tfl.DepthwiseConv2DOptionsT, padding=tfl.Padding.SAME, strideW=stride, strideH=stride,
                            depthMultiplier=1, fusedActivationFunction=relu6, dilationWFactor=1, dilationHFactor=1))

    hw = size // 2
    x = conv(x, 3, 32, 3, 2, relu6, "stem", hw)
    cin, block = 32, 0
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            name = f"block{block}"
            h = conv(x, cin, cin * t, 1, 1, relu6, name + "_expand", hw) if t != 1 else x
            hw = (hw + stride - 1) // stride
            h = depthwise(h, cin * t, stride, name + "_dw", hw)
            h = conv(h, cin * t, c, 1, 1, tfl.ActivationFunctionType.NONE, name + "_project", hw)
            if stride == 1 and cin == c:
                h = g.op(OP.ADD, [x, h], [g.act([1, hw, hw, c], name + "_add")], OPT.AddOptions, options(tfl.AddOptionsT))
            x, cin, block = h, c, block + 1
    x = conv(x, cin, 1280, 1, 1, relu6, "head", hw)
    pooled = g.op(OP.MEAN, [x, g.const(np.array([1, 2], np.int32))], [g.act([1, 1280], "pooled")], OPT.ReducerOptions,
                  options(tfl.ReducerOptionsT, keepDims=False))
    w = g.weight(he(classes, 1280, fan_in=1280), "classifier_w", axis=0 if quant else None)
    b = g.bias(np.zeros(classes, np.float32), "classifier_b", pooled, w)
    logits = g.op(OP.FULLY_CONNECTED, [pooled, w, b], [g.act([1, classes], "logits")], OPT.FullyConnectedOptions,
                  options(tfl.FullyConnectedOptionsT))
    probs = g.op(OP.SOFTMAX, [logits], [g.act([1, classes], "probs", fixed=(1 / 256, -128))], OPT.SoftmaxOptions,
                 options(tfl.SoftmaxOptionsT, beta=1.0))
    if not quant:
        return [logits, probs]
    return [g.op(OP.DEQUANTIZE, [t], [g.tensor([1, classes], FLOAT32, name=n)])
            for t, n in ((logits, "logits_float"), (probs, "probs_float"))]
