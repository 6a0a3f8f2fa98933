"""The inference runtime behind a small interface.

One model file, two engines (the habit of RapidOCR's ``inference_engine/base.py`` + factory):

* :class:`OnnxRuntime` - onnxruntime (desktop; the default when importable);
* :class:`OpenCVRuntime` - OpenCV's ``cv2.dnn`` (platforms without onnxruntime, e.g. phones).

Both expose the same :class:`Runtime` protocol: ``input_names``, ``input_shapes``,
``output_names`` read from the model file itself (never hard-coded), and
``run({name: array}) -> {name: array}``.  :func:`create_runtime` picks one.

Fail fast: a missing, empty, or corrupt model file raises :class:`ModelLoadError` with the path
and the reason at construction time, not at the first frame.  Input names and shapes are parsed
from the ONNX protobuf with a tiny reader of our own (:func:`read_onnx_signature`), so the
OpenCV runtime does not need the ``onnx`` package (a training-only extra).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = [
    "BACKENDS",
    "ModelLoadError",
    "ModelSignature",
    "OnnxRuntime",
    "OpenCVRuntime",
    "Runtime",
    "RuntimeInputError",
    "TensorInfo",
    "create_runtime",
    "onnxruntime_available",
    "read_onnx_signature",
]

BACKENDS = ("auto", "onnxruntime", "opencv")

# A dimension is an int when fixed, None when dynamic (symbolic or unknown).
Shape = tuple[int | None, ...]


class ModelLoadError(RuntimeError):
    """The model file is missing, unreadable, corrupt, or cannot be loaded by the backend."""


class RuntimeInputError(ValueError):
    """``run`` was given inputs that do not match the model (names, rank, fixed dims, dtype)."""


@runtime_checkable
class Runtime(Protocol):
    """What the pipeline needs from an inference engine."""

    @property
    def input_names(self) -> list[str]: ...

    @property
    def input_shapes(self) -> list[Shape]: ...

    @property
    def output_names(self) -> list[str]: ...

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...


# --------------------------------------------------------------------------------------------
# A minimal ONNX protobuf reader (graph inputs/outputs only).
# Field numbers from onnx/onnx.proto: ModelProto.graph = 7; GraphProto.initializer = 5,
# input = 11, output = 12; TensorProto.name = 8; ValueInfoProto.name = 1, type = 2;
# TypeProto.tensor_type = 1; TypeProto.Tensor.elem_type = 1, shape = 2;
# TensorShapeProto.dim = 1; Dimension.dim_value = 1, dim_param = 2.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: Shape | None  # None when the model declares no shape at all
    elem_type: int  # ONNX TensorProto.DataType (1 = float32)


@dataclass(frozen=True)
class ModelSignature:
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]


class _ProtoError(ValueError):
    pass


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise _ProtoError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise _ProtoError("varint too long")


def _fields(buf: memoryview):
    """Yield (field_number, wire_type, value) where value is int or memoryview."""
    pos = 0
    n = len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise _ProtoError("field number 0")
        if wire == 0:
            val, pos = _varint(buf, pos)
            yield field, wire, val
        elif wire == 1:
            if pos + 8 > n:
                raise _ProtoError("truncated fixed64")
            yield field, wire, buf[pos : pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > n:
                raise _ProtoError("truncated length-delimited field")
            yield field, wire, buf[pos : pos + length]
            pos += length
        elif wire == 5:
            if pos + 4 > n:
                raise _ProtoError("truncated fixed32")
            yield field, wire, buf[pos : pos + 4]
            pos += 4
        else:
            raise _ProtoError(f"unsupported wire type {wire}")


def _sub(buf: memoryview, number: int) -> list[memoryview]:
    return [v for f, w, v in _fields(buf) if f == number and w == 2]


def _value_info(buf: memoryview) -> TensorInfo:
    name = ""
    shape: Shape | None = None
    elem_type = 0
    for f, w, v in _fields(buf):
        if f == 1 and w == 2:
            name = bytes(v).decode("utf-8", "replace")
        elif f == 2 and w == 2:
            for tensor in _sub(v, 1):  # TypeProto.tensor_type
                for tf, tw, tv in _fields(tensor):
                    if tf == 1 and tw == 0:
                        elem_type = int(tv)
                    elif tf == 2 and tw == 2:
                        dims: list[int | None] = []
                        for dim in _sub(tv, 1):
                            value: int | None = None
                            for df, dw, dv in _fields(dim):
                                if df == 1 and dw == 0:
                                    value = int(dv)
                                    if value >= 1 << 63:  # negative int64
                                        value -= 1 << 64
                            dims.append(value if value is not None and value > 0 else None)
                        shape = tuple(dims)
    return TensorInfo(name=name, shape=shape, elem_type=elem_type)


def read_onnx_signature(path: str | os.PathLike[str]) -> ModelSignature:
    """Graph inputs (minus initializers) and outputs of an ONNX file, without the onnx package.

    Raises :class:`ModelLoadError` when the file is missing, empty, or not an ONNX model.
    """
    p = Path(path)
    data = _read_model_bytes(p)
    try:
        view = memoryview(data)
        graphs = [v for f, w, v in _fields(view) if f == 7 and w == 2]
        if not graphs:
            raise _ProtoError("no graph in the file")
        graph = graphs[-1]
        initializers: set[str] = set()
        inputs: list[TensorInfo] = []
        outputs: list[TensorInfo] = []
        for f, w, v in _fields(graph):
            if w != 2:
                continue
            if f == 5:
                for tf, tw, tv in _fields(v):
                    if tf == 8 and tw == 2:
                        initializers.add(bytes(tv).decode("utf-8", "replace"))
            elif f == 11:
                inputs.append(_value_info(v))
            elif f == 12:
                outputs.append(_value_info(v))
    except _ProtoError as exc:
        raise ModelLoadError(f"{p}: not a valid ONNX model ({exc})") from None
    inputs = [i for i in inputs if i.name not in initializers]
    if not inputs or not outputs:
        raise ModelLoadError(f"{p}: not a valid ONNX model (graph has no inputs or no outputs)")
    return ModelSignature(inputs=tuple(inputs), outputs=tuple(outputs))


def _read_model_bytes(p: Path) -> bytes:
    if not p.exists():
        raise ModelLoadError(f"model file not found: {p}")
    if p.is_dir():
        raise ModelLoadError(f"model path is a directory, not a file: {p}")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {p}: {exc.strerror or exc}") from None
    if not data:
        raise ModelLoadError(f"model file is empty: {p}")
    return data


# --------------------------------------------------------------------------------------------
# Input checking shared by both runtimes.
# --------------------------------------------------------------------------------------------


# ONNX TensorProto.DataType -> numpy dtype, for the types a vision model takes as input.
_ONNX_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 10: np.float16, 11: np.float64}


def _check_inputs(
    inputs: dict[str, np.ndarray],
    names: list[str],
    shapes: list[Shape],
    model: str,
    dtypes: list[type] | None = None,
) -> dict[str, np.ndarray]:
    missing = [n for n in names if n not in inputs]
    extra = [n for n in inputs if n not in names]
    if missing or extra:
        raise RuntimeInputError(
            f"{model}: inputs must be exactly {names}; missing {missing}, unexpected {extra}"
        )
    checked: dict[str, np.ndarray] = {}
    for i, (name, shape) in enumerate(zip(names, shapes)):
        arr = np.asarray(inputs[name])
        want_dtype = dtypes[i] if dtypes else np.float32
        if arr.dtype != want_dtype:
            if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
                raise RuntimeInputError(f"{model}: input {name!r} must be numeric, got {arr.dtype}")
            arr = arr.astype(want_dtype)
        if shape:
            if arr.ndim != len(shape):
                raise RuntimeInputError(
                    f"{model}: input {name!r} must have rank {len(shape)} {_fmt(shape)}, "
                    f"got shape {arr.shape}"
                )
            for axis, (want, got) in enumerate(zip(shape, arr.shape)):
                if want is not None and want != got:
                    raise RuntimeInputError(
                        f"{model}: input {name!r} axis {axis} must be {want} "
                        f"(model shape {_fmt(shape)}), got shape {arr.shape}"
                    )
        checked[name] = np.ascontiguousarray(arr)
    return checked


def _dtypes_for(signature: ModelSignature, names: list[str]) -> list[type]:
    by_name = {t.name: t.elem_type for t in signature.inputs}
    return [_ONNX_DTYPES.get(by_name.get(n, 1), np.float32) for n in names]


def _fmt(shape: Shape) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


# --------------------------------------------------------------------------------------------
# onnxruntime
# --------------------------------------------------------------------------------------------


def onnxruntime_available() -> bool:
    return importlib.util.find_spec("onnxruntime") is not None


class _NamedIO:
    """The ``Runtime`` members both back-ends answer from their ``_inputs``/``_shapes``/``_outputs``."""

    _inputs: list[str]
    _shapes: list[Shape]
    _outputs: list[str]

    @property
    def input_names(self) -> list[str]:
        return list(self._inputs)

    @property
    def input_shapes(self) -> list[Shape]:
        return list(self._shapes)

    @property
    def output_names(self) -> list[str]:
        return list(self._outputs)


class OnnxRuntime(_NamedIO):
    """onnxruntime on the CPU.  ``threads`` = intra-op threads (default 1: one core per read)."""

    backend = "onnxruntime"

    def __init__(self, path: str | os.PathLike[str], threads: int = 1) -> None:
        self.path = Path(path)
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        signature = read_onnx_signature(self.path)  # fail fast with our own message
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - depends on the platform
            raise ModelLoadError(f"onnxruntime is not installed ({exc}); use backend='opencv'") from exc
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(
                str(self.path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelLoadError(f"onnxruntime cannot load {self.path}: {exc}") from exc
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._outputs = [o.name for o in self._session.get_outputs()]
        self._shapes: list[Shape] = [
            tuple(d if isinstance(d, int) and d > 0 else None for d in (i.shape or ()))
            for i in self._session.get_inputs()
        ]
        self.signature = signature
        self._dtypes = _dtypes_for(signature, self._inputs)

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        feed = _check_inputs(inputs, self._inputs, self._shapes, str(self.path), self._dtypes)
        outs = self._session.run(self._outputs, feed)
        return {name: np.asarray(out) for name, out in zip(self._outputs, outs)}

    def __repr__(self) -> str:
        return f"OnnxRuntime({str(self.path)!r})"


# --------------------------------------------------------------------------------------------
# OpenCV cv2.dnn
# --------------------------------------------------------------------------------------------


class OpenCVRuntime(_NamedIO):
    """OpenCV's ``cv2.dnn`` reading the same ONNX file.

    Names and shapes come from the ONNX file (:func:`read_onnx_signature`), since ``cv2.dnn``
    does not report them.  Fixed shapes: some OpenCV builds (notably 4.x) cannot run a dynamic
    batch axis with a batch > 1; when the first axis is dynamic and the batched forward fails,
    the batch is run one item at a time and the outputs concatenated (valid for models whose
    items are independent, as ours are).  ``threads`` calls ``cv2.setNumThreads``, which is
    process-wide in OpenCV.
    """

    backend = "opencv"

    def __init__(self, path: str | os.PathLike[str], threads: int | None = 1) -> None:
        import cv2

        self.path = Path(path)
        self.signature = read_onnx_signature(self.path)
        try:
            self._net = cv2.dnn.readNetFromONNX(str(self.path))
        except cv2.error as exc:
            raise ModelLoadError(f"OpenCV cannot load {self.path}: {_short_cv_error(exc)}") from exc
        if self._net.empty():
            raise ModelLoadError(f"OpenCV loaded an empty network from {self.path}")
        if threads is not None:
            cv2.setNumThreads(int(threads))
        self._inputs = [t.name for t in self.signature.inputs]
        self._shapes: list[Shape] = [t.shape or () for t in self.signature.inputs]
        self._outputs = [t.name for t in self.signature.outputs]
        self._dtypes = _dtypes_for(self.signature, self._inputs)
        self._split_batch = False  # set after a batched forward failed once

    def _forward(self, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        for name, arr in feed.items():
            self._net.setInput(arr, name)
        outs = self._net.forward(self._outputs)
        return [np.array(o, copy=True) for o in outs]

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        import cv2

        feed = _check_inputs(inputs, self._inputs, self._shapes, str(self.path), self._dtypes)
        batch = {arr.shape[0] if arr.ndim else 1 for arr in feed.values()}
        dynamic_batch = all(s and s[0] is None for s in self._shapes)
        can_split = dynamic_batch and len(batch) == 1 and next(iter(batch)) > 1
        if not (self._split_batch and can_split):
            try:
                outs = self._forward(feed)
                return dict(zip(self._outputs, outs))
            except cv2.error as exc:
                if not can_split:
                    raise RuntimeError(
                        f"OpenCV forward failed on {self.path}: {_short_cv_error(exc)}"
                    ) from exc
                self._split_batch = True
        n = next(iter(batch))
        parts = [self._forward({k: v[i : i + 1] for k, v in feed.items()}) for i in range(n)]
        return {
            name: np.concatenate([p[j] for p in parts], axis=0)
            for j, name in enumerate(self._outputs)
        }

    def __repr__(self) -> str:
        return f"OpenCVRuntime({str(self.path)!r})"


def _short_cv_error(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else repr(exc)


# --------------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------------


def create_runtime(
    path: str | os.PathLike[str], backend: str = "auto", threads: int = 1
) -> Runtime:
    """Load ``path`` with ``backend``: "onnxruntime", "opencv", or "auto" (onnxruntime when
    importable, else OpenCV).  Raises :class:`ModelLoadError` (missing/corrupt file) or
    ``ValueError`` (unknown backend)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "auto":
        backend = "onnxruntime" if onnxruntime_available() else "opencv"
    if backend == "onnxruntime":
        return OnnxRuntime(path, threads=threads)
    return OpenCVRuntime(path, threads=threads)
