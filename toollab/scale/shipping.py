"""Jobs and results as bytes for another process: cloudpickle, with every model that `load_model` loaded sent as
its `LoadSpec` instead of its weights, and loaded again on arrival, once per process (a worker's later jobs get
the same model object, so its prompt caches and its decode batch are shared)."""

from __future__ import annotations

import io
import pickle
import threading
from typing import Any

import cloudpickle

from toollab.models.registry import LoadSpec, load_spec_of

_MODEL = "toollab.model"
_loaded: dict[bytes, Any] = {}  # this process's models, by their pickled LoadSpec
_loading = threading.Lock()


class _Pickler(cloudpickle.CloudPickler):
    def persistent_id(self, obj: Any) -> Any:
        spec = load_spec_of(obj)
        return (_MODEL, pickle.dumps(spec)) if spec is not None else None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        kind, spec = pid
        if kind != _MODEL:
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        return model_for(spec)


def model_for(spec: bytes) -> Any:
    """The model a pickled LoadSpec names, loaded on first use in this process."""
    with _loading:
        if spec not in _loaded:
            loaded: LoadSpec = pickle.loads(spec)
            _loaded[spec] = loaded.load()
        return _loaded[spec]


def dumps(obj: Any) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    return _Unpickler(io.BytesIO(data)).load()
