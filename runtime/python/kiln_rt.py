"""ctypes binding for kiln_rt: load a compiled model library and run it.

    model = kiln_rt.load("model.so")   # or kiln_rt.Model("model.so")
    print(model.inputs)            # [TensorInfo(name='x', dtype=float32, dims=['batch', 3])]
    (z,) = model.run(x, y)         # or model.run({"x": x, "y": y})

The runtime library is found through $KILN_RT_LIBRARY, else where
`cmake --install` puts it next to this module (PREFIX/lib), else in build/lib
next to this source tree, else by the dynamic loader's usual search.
"""

import ctypes
import os
import threading
from collections import namedtuple

import numpy as np

__all__ = ["KilnError", "Model", "TensorInfo", "load", "load_runtime"]

# kiln_dtype codes (ONNX TensorProto.DataType) to numpy.
_DTYPES = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    4: np.uint16,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
    12: np.uint32,
    13: np.uint64,
}
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}
_STATUS = [
    "OK",
    "INVALID_ARGUMENT",
    "LOAD_FAILED",
    "ABI_MISMATCH",
    "SHAPE_MISMATCH",
    "DTYPE_MISMATCH",
    "OUT_OF_MEMORY",
    "RUN_FAILED",
    "UNSUPPORTED_CPU",
    "NO_DEVICE",
    "DEVICE_ERROR",
]


class KilnError(RuntimeError):
    """A failing kiln_rt call; `status` is the kiln_status name."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


# dims: static ints, or the symbol name (str) / None for unnamed symbols, or
# RUN_TIME for an extent only the run computes (NonZero, Unique, ...).
RUN_TIME = "(run time)"
_DIM_AT_RUN_TIME = -(2**63)
TensorInfo = namedtuple("TensorInfo", "name dtype dims")


class _TensorInfoC(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
    ]


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
        ("data", ctypes.c_void_p),
        ("byte_size", ctypes.c_uint64),
    ]


def _candidates():
    env = os.environ.get("KILN_RT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    # Installed: PREFIX/lib/python3/dist-packages/kiln_rt.py, PREFIX/lib/.
    installed = os.path.join(os.path.dirname(os.path.dirname(here)), "libkiln_rt.so")
    candidates = [os.path.join(root, "build", "lib", "libkiln_rt.so"), "libkiln_rt.so"]
    return ([installed] if os.path.isfile(installed) else []) + candidates


_lib = None
_lib_lock = threading.Lock()


def _declare(lib):
    c_model, c_ctx = ctypes.c_void_p, ctypes.c_void_p
    sigs = {
        "kiln_last_error": (ctypes.c_char_p, []),
        "kiln_model_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(c_model)]),
        "kiln_model_unload": (None, [c_model]),
        "kiln_model_name": (ctypes.c_char_p, [c_model]),
        "kiln_model_target": (ctypes.c_char_p, [c_model]),
        "kiln_model_kiln_version": (ctypes.c_char_p, [c_model]),
        "kiln_model_weights_checksum": (ctypes.c_uint64, [c_model]),
        "kiln_model_arena_bytes": (ctypes.c_uint64, [c_model]),
        "kiln_model_num_inputs": (ctypes.c_int64, [c_model]),
        "kiln_model_num_outputs": (ctypes.c_int64, [c_model]),
        "kiln_model_input": (ctypes.POINTER(_TensorInfoC), [c_model, ctypes.c_int64]),
        "kiln_model_output": (ctypes.POINTER(_TensorInfoC), [c_model, ctypes.c_int64]),
        "kiln_model_num_symbols": (ctypes.c_int64, [c_model]),
        "kiln_model_symbol": (ctypes.c_char_p, [c_model, ctypes.c_int64]),
        "kiln_context_create": (ctypes.c_int, [c_model, ctypes.POINTER(c_ctx)]),
        "kiln_context_destroy": (None, [c_ctx]),
        "kiln_infer_output_dims": (
            ctypes.c_int,
            [c_model, ctypes.POINTER(_Tensor), ctypes.c_int64, ctypes.c_int64,
             ctypes.POINTER(ctypes.c_int64)],
        ),
        "kiln_run": (
            ctypes.c_int,
            [c_ctx, ctypes.POINTER(_Tensor), ctypes.c_int64,
             ctypes.POINTER(_Tensor), ctypes.c_int64],
        ),
        "kiln_model_arena_bytes_for": (
            ctypes.c_int,
            [c_model, ctypes.POINTER(_Tensor), ctypes.c_int64,
             ctypes.POINTER(ctypes.c_uint64)],
        ),
        "kiln_context_arena_bytes": (ctypes.c_uint64, [c_ctx]),
        "kiln_context_output": (
            ctypes.c_int, [c_ctx, ctypes.c_int64, ctypes.POINTER(_Tensor)]),
        "kiln_rt_set_num_threads": (None, [ctypes.c_int]),
        "kiln_rt_get_num_threads": (ctypes.c_int, []),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def load_runtime():
    """Returns the loaded kiln_rt CDLL, loading it on first use."""
    global _lib
    with _lib_lock:
        if _lib is None:
            errors = []
            for path in _candidates():
                if os.sep in path and not os.path.exists(path):
                    errors.append(f"{path}: not found")
                    continue
                try:
                    _lib = _declare(ctypes.CDLL(path))
                    break
                except OSError as e:
                    errors.append(str(e))
            if _lib is None:
                raise KilnError("LOAD_FAILED", "cannot find libkiln_rt.so ("
                                + "; ".join(errors) + "); set KILN_RT_LIBRARY")
        return _lib


def _check(lib, status):
    if status != 0:
        name = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
        raise KilnError(name, lib.kiln_last_error().decode(errors="replace"))


def _tensor(array, dims_keepalive):
    dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    dims_keepalive.append(dims)
    code = _CODES.get(array.dtype)
    if code is None:
        raise KilnError("DTYPE_MISMATCH", f"unsupported numpy dtype {array.dtype}")
    return _Tensor(code, array.ndim, dims, array.ctypes.data, array.nbytes)


class Model:
    """A loaded model library with one run context. `run` is serialized per
    Model; create several Models for concurrent runs."""

    def __init__(self, path):
        self._lib = lib = load_runtime()
        self._model = ctypes.c_void_p()
        self._ctx = ctypes.c_void_p()
        _check(lib, lib.kiln_model_load(os.fsencode(path), ctypes.byref(self._model)))
        try:
            _check(lib, lib.kiln_context_create(self._model, ctypes.byref(self._ctx)))
        except KilnError:
            lib.kiln_model_unload(self._model)
            self._model = ctypes.c_void_p()
            raise
        self._lock = threading.Lock()
        m = self._model
        self.name = lib.kiln_model_name(m).decode()
        self.target = lib.kiln_model_target(m).decode()
        self.kiln_version = lib.kiln_model_kiln_version(m).decode()
        self.weights_checksum = lib.kiln_model_weights_checksum(m)
        self.arena_bytes = lib.kiln_model_arena_bytes(m)
        self.symbols = [lib.kiln_model_symbol(m, i).decode()
                        for i in range(lib.kiln_model_num_symbols(m))]
        self.inputs = [self._info(lib.kiln_model_input(m, i))
                       for i in range(lib.kiln_model_num_inputs(m))]
        self.outputs = [self._info(lib.kiln_model_output(m, i))
                        for i in range(lib.kiln_model_num_outputs(m))]

    def _info(self, ptr):
        c = ptr.contents
        dims = []
        for k in range(c.rank):
            d = c.dims[k]
            if d == _DIM_AT_RUN_TIME:
                dims.append(RUN_TIME)
                continue
            sym = -(d + 1)
            dims.append(d if d >= 0 else (self.symbols[sym] or None))
        return TensorInfo(c.name.decode(), np.dtype(_DTYPES[c.dtype]), dims)

    def _arrange(self, args, kwargs):
        if len(args) == 1 and isinstance(args[0], dict) and not kwargs:
            kwargs, args = args[0], ()
        if args and kwargs:
            raise KilnError("INVALID_ARGUMENT", "pass inputs by position or by name, not both")
        if kwargs:
            unknown = set(kwargs) - {i.name for i in self.inputs}
            if unknown:
                raise KilnError("INVALID_ARGUMENT", f"unknown inputs {sorted(unknown)}")
            missing = [i.name for i in self.inputs if i.name not in kwargs]
            if missing:
                raise KilnError("INVALID_ARGUMENT", f"missing inputs {missing}")
            args = [kwargs[i.name] for i in self.inputs]
        arrays = []
        for info, a in zip(self.inputs, args):
            # Lists and scalars take the model's dtype; arrays keep theirs so
            # that a mismatch is reported rather than silently converted.
            a = np.asarray(a) if isinstance(a, np.ndarray) else np.asarray(a, info.dtype)
            arrays.append(np.ascontiguousarray(a))
        arrays.extend(np.asarray(a) for a in args[len(self.inputs):])
        return arrays

    def run(self, *args, **kwargs):
        """Runs on numpy arrays (positional, a dict, or keywords) and returns
        the outputs as a list of new arrays."""
        lib = self._lib
        arrays = self._arrange(args, kwargs)
        keep = []
        n_in = len(arrays)
        inputs = (_Tensor * max(n_in, 1))(*[_tensor(a, keep) for a in arrays])
        outputs, out_descs = [], []
        for i, info in enumerate(self.outputs):
            if RUN_TIME in info.dims:
                # The run allocates it; copied out below.
                outputs.append(None)
                out_descs.append(_Tensor(_CODES[info.dtype], len(info.dims), None, None, 0))
                continue
            dims = (ctypes.c_int64 * max(len(info.dims), 1))()
            _check(lib, lib.kiln_infer_output_dims(self._model, inputs, n_in, i, dims))
            outputs.append(np.empty(tuple(dims[: len(info.dims)]), info.dtype))
            out_descs.append(_tensor(outputs[-1], keep))
        out_t = (_Tensor * max(len(outputs), 1))(*out_descs)
        with self._lock:
            if not self._ctx:
                raise KilnError("INVALID_ARGUMENT", "model is closed")
            _check(lib, lib.kiln_run(self._ctx, inputs, n_in, out_t, len(outputs)))
            for i, info in enumerate(self.outputs):
                if outputs[i] is not None:
                    continue
                t = _Tensor()
                _check(lib, lib.kiln_context_output(self._ctx, i, ctypes.byref(t)))
                shape = tuple(t.dims[k] for k in range(t.rank))
                a = np.empty(shape, info.dtype)
                if a.nbytes:
                    ctypes.memmove(a.ctypes.data, t.data, a.nbytes)
                outputs[i] = a
        return outputs

    __call__ = run

    def arena_bytes_for(self, *args, **kwargs):
        """Scratch bytes a run on these inputs needs: the static plan's, or
        more for a model whose buffers grow with its symbolic dims."""
        arrays = self._arrange(args, kwargs)
        keep = []
        inputs = (_Tensor * max(len(arrays), 1))(*[_tensor(a, keep) for a in arrays])
        out = ctypes.c_uint64()
        _check(self._lib, self._lib.kiln_model_arena_bytes_for(
            self._model, inputs, len(arrays), ctypes.byref(out)))
        return out.value

    @property
    def context_arena_bytes(self):
        """Bytes the run context's arena holds now (it grows, never shrinks)."""
        with self._lock:
            return self._lib.kiln_context_arena_bytes(self._ctx)

    def close(self):
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._ctx:
                self._lib.kiln_context_destroy(self._ctx)
                self._ctx = ctypes.c_void_p()
            if self._model:
                self._lib.kiln_model_unload(self._model)
                self._model = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"Model({self.name!r}, target={self.target!r}, inputs={self.inputs}, outputs={self.outputs})"


def load(path):
    """Loads a compiled model library (a relative path is a file, not a
    library search): the same as Model(path)."""
    return Model(path)


def set_num_threads(n):
    """Thread count for kiln_rt_parallel_for; n <= 0 restores the default."""
    load_runtime().kiln_rt_set_num_threads(int(n))
