"""An adapter merged into int4 weights, so that decoding with it costs what decoding without it costs.

Beside int4 weights an adapter's update is kept apart, as small float32 matrix products on every layer (0.82x
the base's decode speed). Added into the weights and rounded to the GGUF's 4-bit grid, it vanishes: its changes
are smaller than half a step, and no code moves (held-out loss 0.557 with the shipped adapter rounded in, as
without it; 0.151 with it). GPTQ (Frantar et al. 2022) rounds a layer column by column and carries each column's
rounding error onto the columns not yet rounded, weighted by how the layer's inputs co-vary (their second moments
on calibration text), so that the layer's outputs, not its weights, stay close. On the GGUF's own grid (its
scales and minima kept, only codes change) and in the order of the largest input moments first, it moves 0.8% of
the codes and keeps most of the adapter (held-out loss 0.191). The layers where rounding loses the largest share of
their output (measured on the calibration moments) keep the update apart instead, a fifth of the fused groups
(q|k|v, o, gate|up, down: the decode path computes a group's updates in one product, so a group is the unit of
cost): held-out loss 0.167, at about 3% of the decode speed where keeping every update apart costs 16%.

The changed codes are computed once, where the adapter is exported (`toollab train-export`, `toollab
train-int4`), and stored beside it (`int4_merge.safetensors`, with the fingerprint of the GGUF file they apply to):
loading then swaps them in before packing and decodes at the base's speed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import torch

from toollab.models.local_quant import GROUP, Codes, dequantize, nonzero, q4_1_blocks
from toollab.models.local_weights import ADAPTER_WEIGHTS

MERGE_FILE = "int4_merge.safetensors"
DAMPING = 0.001  # of the mean input moment, added to the diagonal (0.01: loss 0.197, 0.1: 0.254, 0.001: 0.193)
BLOCK = 128  # columns rounded before their error is carried onto the rest in one product (GPTQ's lazy batch)
APART = 0.2  # share of fused groups whose update stays apart (keep apart none: loss 0.191, 10%: 0.179, 20%: 0.167)
# layers the lean decode path (`local_decode._fuse`) computes in one product
FUSED = {"q_proj": "qkv", "k_proj": "qkv", "v_proj": "qkv", "gate_proj": "gate_up", "up_proj": "gate_up"}


def fused_group(name: str) -> str:
    parent, _, leaf = name.rpartition(".")
    return f"{parent}.{FUSED.get(leaf, leaf)}"


def fingerprint(file: str | Path) -> str:
    """A file's identity (the GGUF's, the adapter's weights'): changed codes apply to the weights they were
    computed from, and no others."""
    stat = Path(file).stat()
    return _fingerprint(str(Path(file).resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _fingerprint(file: str, size: int, mtime: int) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()[:16]


def input_moments(model: Any, names: Iterable[str], batches: Iterable[Any]) -> dict[str, torch.Tensor]:
    """X^T X of the named linear layers' inputs over the calibration batches (token id tensors), in float64, by
    fused group: the layers of a group read the same input, so it is computed once for them."""
    moments: dict[str, torch.Tensor] = {}
    hooks = []
    for group, name in {fused_group(name): name for name in names}.items():
        layer = model.get_submodule(name)

        def hook(module: Any, inputs: tuple[torch.Tensor, ...], output: Any, group: str = group) -> None:
            x = inputs[0].reshape(-1, inputs[0].shape[-1]).double()
            moments[group] = moments.get(group, 0) + x.t() @ x

        hooks.append(layer.register_forward_hook(hook))
    try:
        with torch.inference_mode():
            for ids in batches:
                model(input_ids=ids)
    finally:
        for h in hooks:
            h.remove()
    return moments


def requantize(
    weight: torch.Tensor, scale: torch.Tensor, minimum: torch.Tensor, moments: torch.Tensor, damping: float = DAMPING
) -> torch.Tensor:
    """Codes 0..15 ([out, in], int32) for `weight` on the grid `code * scale + minimum` (per row and group of 32
    inputs), chosen by GPTQ with act-order: columns rounded in the order of their largest input moments, each
    one's error carried onto the columns still to round through the inverse of the moments' Cholesky factor."""
    w = weight.double().clone()
    h = moments.double().clone()
    columns = w.shape[1]
    dead = torch.diag(h) == 0  # an input never seen: any code will do, the layer never reads it
    h[dead, dead] = 1
    w[:, dead] = 0
    h += damping * torch.mean(torch.diag(h)) * torch.eye(columns, dtype=h.dtype)
    order = torch.argsort(torch.diag(h), descending=True)
    w, h = w[:, order], h[order][:, order]
    upper = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(h)), upper=True)
    step = nonzero(scale).double()
    low = minimum.double()
    codes = torch.zeros_like(w, dtype=torch.int32)
    for start in range(0, columns, BLOCK):
        end = min(start + BLOCK, columns)
        part, errors, inverse = w[:, start:end].clone(), torch.zeros_like(w[:, start:end]), upper[start:end, start:end]
        for i in range(end - start):
            group = int(order[start + i]) // GROUP
            code = torch.round((part[:, i] - low[:, group]) / step[:, group]).clamp(0, 15)
            codes[:, start + i] = code.int()
            error = (part[:, i] - (code * scale[:, group].double() + low[:, group])) / inverse[i, i]
            part[:, i:] -= error[:, None] * inverse[i, i:][None, :]
            errors[:, i] = error
        w[:, end:] -= errors @ upper[start:end, end:]
    restored = torch.empty_like(codes)
    restored[:, order] = codes
    return restored


def merge_codes(
    base: Any,
    merged: Any,
    names: Iterable[str],
    batches: Iterable[Any],
    on_layer: Callable[[int, int], None] | None = None,
    apart: float = APART,
) -> dict[str, Codes]:
    """For each named layer merged: the flat positions whose code changes and their new codes, so that the GGUF
    model `base` (float32, its layers exact Q4_1 blocks) computes close to `merged` (the same model with the
    adapter added into its weights), its inputs' moments read from `merged` on the calibration batches. The
    `apart` share of fused groups that rounding serves worst is left out: their update stays beside the codes."""
    names = list(names)
    moments = input_moments(merged, names, batches)
    changes: dict[str, Codes] = {}
    lost: dict[str, float] = {}  # by fused group: the share of the layers' output that rounding loses
    for done, name in enumerate(names, 1):
        blocks = q4_1_blocks(base.get_submodule(name).weight)
        if blocks is None:
            raise ValueError(f"{name} is not Q4_1 blocks: only a GGUF's 4-bit layers take merged codes")
        codes, scale, minimum = blocks
        target, h = merged.get_submodule(name).weight.detach().double(), moments[fused_group(name)]
        new = requantize(target, scale, minimum, h)
        error = dequantize(new, scale, minimum) - target
        share = torch.einsum("oi,ij,oj->", error, h, error) / torch.einsum("oi,ij,oj->", target, h, target)
        lost[fused_group(name)] = lost.get(fused_group(name), 0.0) + float(share)
        where = (new != codes).flatten().nonzero().flatten()
        changes[name] = (where.int(), new.flatten()[where].to(torch.uint8))
        if on_layer is not None:
            on_layer(done, len(names))
    worst = set(sorted(lost, key=lost.__getitem__, reverse=True)[: round(apart * len(lost))])
    return {name: codes for name, codes in changes.items() if fused_group(name) not in worst}


def write_merge(folder: Path, changes: dict[str, Codes], gguf: str | Path) -> Path:
    from safetensors.torch import save_file

    tensors = {}
    for name, (where, codes) in changes.items():
        tensors[f"{name}.where"], tensors[f"{name}.codes"] = where.contiguous(), codes.contiguous()
    path = folder / MERGE_FILE
    metadata = {"gguf": fingerprint(gguf), "adapter": fingerprint(folder / ADAPTER_WEIGHTS), "damping": str(DAMPING)}
    save_file(tensors, str(path), metadata=metadata)
    path.chmod(0o644)  # package data must be readable by all
    return path


def read_merge(folder: str | Path, gguf: str | Path) -> dict[str, Codes] | None:
    """The changed codes stored beside an adapter, if there are any for this GGUF file and these adapter weights
    (an adapter trained or exported again into the folder makes them stale: they are then left unused)."""
    from safetensors import safe_open

    path = Path(folder).expanduser() / MERGE_FILE
    weights = Path(folder).expanduser() / ADAPTER_WEIGHTS
    if not path.is_file() or not weights.is_file():
        return None
    with safe_open(str(path), framework="pt") as f:
        metadata = f.metadata() or {}
        if metadata.get("gguf") != fingerprint(gguf) or metadata.get("adapter") != fingerprint(weights):
            return None
        keys = list(f.keys())
        tensors = {k: f.get_tensor(k) for k in keys}
    names = {k.rsplit(".", 1)[0] for k in keys}
    return {n: (tensors[f"{n}.where"], tensors[f"{n}.codes"]) for n in names}
