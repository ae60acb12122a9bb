"""The runtimes the peer benchmark compares, behind one small interface.

Each runtime is built from converted model files and a thread count, and
offers run(x) -> numpy array (the model's first output, float32). All of them
live in one Python process so the benchmark can interleave them run by run.
Mote is reached through its C API in libmote.so (ctypes), the peers through
their pip packages' Python bindings. Every runtime is set to fp32 arithmetic
on the CPU (no fp16 or bf16 storage, no GPU), except where a caller asks for
a Vulkan backend (gpu_bench.py).
"""
import ctypes
import functools
import os
import re

import numpy as np


class PeerError(Exception):
    """A runtime could not load or run a model; the message says which."""


# ---- Mote (C API over ctypes) -------------------------------------------

MOTE_F32 = 0


class _SessionOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("threads", ctypes.c_int32), ("backend", ctypes.c_char_p)]


@functools.lru_cache(maxsize=None)
def _load_libmote(path):
    """The library with its C API's signatures declared, once per path."""
    lib = ctypes.CDLL(path)
    vp = ctypes.c_void_p
    pvp = ctypes.POINTER(vp)
    lib.mote_version.restype = ctypes.c_char_p
    lib.mote_last_error.restype = ctypes.c_char_p
    lib.mote_model_load.argtypes = [ctypes.c_char_p, pvp]
    lib.mote_model_release.argtypes = [vp]
    lib.mote_session_options_init.argtypes = [ctypes.POINTER(_SessionOptions)]
    lib.mote_session_create.argtypes = [vp, ctypes.POINTER(_SessionOptions), pvp]
    lib.mote_session_release.argtypes = [vp]
    lib.mote_session_prepare.argtypes = [vp]
    lib.mote_session_run.argtypes = [vp, pvp, ctypes.c_size_t, pvp, ctypes.c_size_t]
    lib.mote_model_output_count.argtypes = [vp, ctypes.POINTER(ctypes.c_size_t)]
    lib.mote_tensor_create_borrowed.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, vp,
                                                ctypes.c_size_t, pvp]
    lib.mote_tensor_release.argtypes = [vp]
    lib.mote_tensor_rank.argtypes = [vp, ctypes.POINTER(ctypes.c_size_t)]
    lib.mote_tensor_dims.argtypes = [vp, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t]
    lib.mote_tensor_dtype.argtypes = [vp, ctypes.POINTER(ctypes.c_int)]
    lib.mote_tensor_byte_size.argtypes = [vp, ctypes.POINTER(ctypes.c_size_t)]
    lib.mote_tensor_data.argtypes = [vp, pvp]
    return lib


class Mote:
    name = "Mote"

    def __init__(self, libmote, model_path, threads, backend="cpu"):
        self._lib = _load_libmote(libmote)
        self.version = self._lib.mote_version().decode()
        self._model = ctypes.c_void_p()
        self._check(self._lib.mote_model_load(model_path.encode(), ctypes.byref(self._model)), f"loading {model_path}")
        options = _SessionOptions()
        self._lib.mote_session_options_init(ctypes.byref(options))
        options.threads = threads
        options.backend = backend.encode()
        self._session = ctypes.c_void_p()
        self._check(self._lib.mote_session_create(self._model, ctypes.byref(options), ctypes.byref(self._session)),
                    f"creating a {backend} session")
        self._check(self._lib.mote_session_prepare(self._session), "preparing")
        count = ctypes.c_size_t()
        self._lib.mote_model_output_count(self._model, ctypes.byref(count))
        self._outputs = (ctypes.c_void_p * count.value)()

    @staticmethod
    def version_of(libmote):
        return _load_libmote(libmote).mote_version().decode()

    def _check(self, status, what):
        if status != 0:
            raise PeerError(f"Mote: {what}: {self._lib.mote_last_error().decode()}")

    def run(self, x):
        x = np.ascontiguousarray(x, dtype=np.float32)
        dims = (ctypes.c_int64 * x.ndim)(*x.shape)
        tensor = ctypes.c_void_p()
        self._check(self._lib.mote_tensor_create_borrowed(MOTE_F32, dims, x.ndim, x.ctypes.data, x.nbytes,
                                                          ctypes.byref(tensor)), "wrapping the input")
        try:
            inputs = (ctypes.c_void_p * 1)(tensor)
            self._check(self._lib.mote_session_run(self._session, inputs, 1, self._outputs, len(self._outputs)),
                        "running")
        finally:
            self._lib.mote_tensor_release(tensor)
        result = self._to_numpy(self._outputs[0])
        for out in self._outputs:
            self._lib.mote_tensor_release(out)
        return result

    def _to_numpy(self, tensor):
        rank = ctypes.c_size_t()
        self._lib.mote_tensor_rank(tensor, ctypes.byref(rank))
        dims = (ctypes.c_int64 * max(rank.value, 1))()
        self._lib.mote_tensor_dims(tensor, dims, len(dims))
        dtype = ctypes.c_int()
        self._lib.mote_tensor_dtype(tensor, ctypes.byref(dtype))
        if dtype.value != MOTE_F32:
            raise PeerError(f"Mote: output dtype {dtype.value} is not f32")
        nbytes = ctypes.c_size_t()
        self._lib.mote_tensor_byte_size(tensor, ctypes.byref(nbytes))
        data = ctypes.c_void_p()
        self._lib.mote_tensor_data(tensor, ctypes.byref(data))
        flat = np.frombuffer(ctypes.string_at(data, nbytes.value), dtype=np.float32)
        return flat.reshape([dims[i] for i in range(rank.value)])

    def close(self):
        self._lib.mote_session_release(self._session)
        self._lib.mote_model_release(self._model)


# ---- onnxruntime ---------------------------------------------------------

class OnnxRuntime:
    name = "onnxruntime"

    def __init__(self, onnx_path, threads):
        import onnxruntime as ort
        self.version = ort.__version__
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # onnxruntime's defaults otherwise: its idle workers spin for a while
        # after each parallel op, which is what its users get. The spinning
        # would take a core from whichever runtime ran next in the interleaved
        # rounds; peer_bench.py's settling runs before each runtime's runs
        # prevents that (so did disabling the spinning before 2026-11-29,
        # which cost onnxruntime a wake-up per op: SqueezeNet at 2 threads
        # 3.1 ms against 2.0 with it spinning, same minutes).
        self._session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name

    def run(self, x):
        return self._session.run(None, {self._input: x})[0]

    def close(self):
        self._session = None


# ---- ncnn (pip ncnn; model converted by pnnx) ----------------------------

class Ncnn:
    name = "ncnn"

    def __init__(self, param_path, bin_path, threads, vulkan=False, fp32=True):
        """On the CPU, or on ncnn's default Vulkan device with `vulkan`;
        fp32 throughout unless `fp32` is False (ncnn's defaults then store
        and compute in fp16/bf16 where the device allows it)."""
        import ncnn
        self._ncnn = ncnn
        self.version = ncnn.__version__
        self._net = ncnn.Net()
        opt = self._net.opt
        opt.num_threads = threads
        opt.use_vulkan_compute = vulkan
        if fp32:
            opt.use_fp16_packed = False
            opt.use_fp16_storage = False
            opt.use_fp16_arithmetic = False
            opt.use_bf16_storage = False
        if self._net.load_param(param_path) != 0 or self._net.load_model(bin_path) != 0:
            raise PeerError(f"ncnn: cannot load {param_path}")
        self._input_name = self._net.input_names()[0]
        self._output_name = self._net.output_names()[0]

    def run(self, x):
        # pnnx drops the batch dimension (ncnn's Mat has none).
        with self._net.create_extractor() as ex:
            ex.input(self._input_name, self._ncnn.Mat(np.ascontiguousarray(x[0])).clone())
            ret, out = ex.extract(self._output_name)
            if ret != 0:
                raise PeerError(f"ncnn: extract {self._output_name} returned {ret}")
            return np.array(out)[np.newaxis]

    def close(self):
        self._net.clear()


# ---- MNN (pip MNN; model converted by its mnnconvert) --------------------

class Mnn:
    name = "MNN"

    def __init__(self, mnn_path, threads):
        import MNN
        self._mnn = MNN
        self.version = MNN.version()
        self._interpreter = MNN.Interpreter(mnn_path)
        # precision "high": fp32 (MNN lowers to fp16/bf16 on "low").
        self._session = self._interpreter.createSession({"backend": "CPU", "numThread": threads,
                                                         "precision": "high"})
        self._input = self._interpreter.getSessionInput(self._session)

    def run(self, x):
        mnn = self._mnn
        x = np.ascontiguousarray(x, dtype=np.float32)
        host = mnn.Tensor(x.shape, mnn.Halide_Type_Float, x, mnn.Tensor_DimensionType_Caffe)
        self._input.copyFrom(host)
        self._interpreter.runSession(self._session)
        out = self._interpreter.getSessionOutput(self._session)
        shape = out.getShape()
        result = mnn.Tensor(shape, mnn.Halide_Type_Float, np.zeros(shape, dtype=np.float32),
                            mnn.Tensor_DimensionType_Caffe)
        out.copyToHostTensor(result)
        return np.array(result.getNumpyData(), copy=True).reshape(shape)

    def close(self):
        # The Python binding frees the session with its interpreter.
        self._session = None
        self._interpreter = None


# mote-bench's result row: backend, device, "prep cold" and "prep warm" in
# ms, then p50, p90 and min (ms), then the memory columns, whose sizes are
# one token ("-") or two ("12.3 MiB").
_BENCH_ROW = re.compile(r"^(\S+)\s.*?([0-9.]+) ms\s+([0-9.]+) ms\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s", re.M)


def mote_bench_timings(stdout, backend):
    """{'p50', 'p90', 'min', 'prepare_cold', 'prepare_warm'} in ms from
    mote-bench's row for `backend` (cpu, vulkan), or None without one."""
    for m in _BENCH_ROW.finditer(stdout):
        if m.group(1) == backend:
            cold, warm, p50, p90, low = (float(m.group(i)) for i in range(2, 7))
            return {"p50": p50, "p90": p90, "min": low, "prepare_cold": cold, "prepare_warm": warm}
    return None


# mote-bench --per-op: one line per op, slowest first ("  1.2345 ms  12.3%
# vulkan  #4    MatMul 'name'"), then "total of N ops".
_OP_LINE = re.compile(r"^\s+([0-9.]+) ms\s+[0-9.]+%\s+(\S+)\s+#\d+\s+(\S+)", re.M)
_OP_TOTAL = re.compile(r"total of (\d+) ops")


def mote_bench_ops(stdout):
    """mote-bench --per-op's listing: ([(ms, device, op type)], op count),
    or ([], 0) without one."""
    total = _OP_TOTAL.search(stdout)
    ops = [(float(m.group(1)), m.group(2), m.group(3)) for m in _OP_LINE.finditer(stdout)]
    return ops, int(total.group(1)) if total else 0


def pnnx_executable():
    """The pnnx binary of the pip package, without importing the package
    (its Python side imports torch, which the benchmark does not need)."""
    import importlib.util
    spec = importlib.util.find_spec("pnnx")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "pnnx")
    return path if os.access(path, os.X_OK) else None


class LiteRt:
    """LiteRT's interpreter (pip ai-edge-litert) on a .tflite model, with its
    default delegate (XNNPACK) as a user gets it."""

    def __init__(self, tflite_path, threads):
        from ai_edge_litert.interpreter import Interpreter
        self.interp = Interpreter(model_path=tflite_path, num_threads=threads)
        self.interp.allocate_tensors()
        self.input = self.interp.get_input_details()[0]["index"]
        self.outputs = [d["index"] for d in self.interp.get_output_details()]

    def run(self, x):
        self.interp.set_tensor(self.input, x)
        self.interp.invoke()
        return self.interp.get_tensor(self.outputs[0])

    def close(self):
        self.interp = None
