"""Keeping a GGUF model's 4-bit weights 4-bit on CPU, with torch's own int4 kernels.

Offline, transformers dequantizes a GGUF file completely, so each decoded token reads every weight in 16 or
32 bits: memory traffic, not arithmetic, sets the speed. A Q4_1 block is 32 weights `w = d*q + m` with q in
0..15, which is exactly torch's group-wise int4 form `w = (q - 8)*scale + zero` with group size 32, scale d
and zero m + 8d. So the blocks are recovered from the dequantized float32 weights (the minimum of a block is m,
the maximum m + 15d), checked to reproduce every weight, and packed for `_weight_int4pack_mm_for_cpu`.
The scales are kept in bfloat16, the kernel's activation dtype (llama.cpp keeps them in float16).
"""

from __future__ import annotations

from typing import Any

import torch

GROUP = 32


class Int4Linear(torch.nn.Module):
    """A bias-free linear layer whose weight is int4 in groups of 32 along the input dimension, plus an optional
    low-rank update B @ A (a LoRA adapter's, B scaled) kept apart in float32 (bfloat16 matrix products this small
    run slower on CPU): added into the weight and quantized again, an adapter's update is mostly rounded away
    (4-bit steps are larger than its changes; held-out loss 0.44 merged in float32, 0.79 requantized, 0.83
    without the adapter, in the first quick run)."""

    packed: torch.Tensor
    scales_and_zeros: torch.Tensor

    def __init__(self, packed: torch.Tensor, scales_and_zeros: torch.Tensor, out_features: int, in_features: int):
        super().__init__()
        self.register_buffer("packed", packed)
        self.register_buffer("scales_and_zeros", scales_and_zeros)
        self.out_features, self.in_features = out_features, in_features
        self.down: torch.Tensor | None = None  # A transposed: [in_features, rank], float32
        self.up: torch.Tensor | None = None  # B transposed: [rank, out_features], float32

    def add_low_rank(self, down: torch.Tensor, up: torch.Tensor) -> None:
        """`down` is A [rank, in_features], `up` is B [out_features, rank] (scaled)."""
        self.down, self.up = down.float().t().contiguous(), up.float().t().contiguous()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        flat = x.reshape(-1, shape[-1]).to(torch.bfloat16)
        y = torch.ops.aten._weight_int4pack_mm_for_cpu(flat, self.packed, GROUP, self.scales_and_zeros)
        if self.down is not None and self.up is not None:
            y = y + ((flat.float() @ self.down) @ self.up).to(torch.bfloat16)
        return y.reshape(*shape[:-1], self.out_features)


def _groups(weight: torch.Tensor) -> torch.Tensor | None:
    """The weight as [rows, blocks, 32] in float32, or None when its rows do not split into blocks."""
    n, k = weight.shape
    return None if k % GROUP else weight.detach().float().reshape(n, k // GROUP, GROUP)


def _reproduces(rebuilt: torch.Tensor, w: torch.Tensor) -> bool:
    """Whether recovered blocks give back every weight (up to float32 rounding)."""
    return bool((rebuilt - w).abs().amax() <= 1e-6 * float(w.abs().amax()) + 1e-9)


def nonzero(d: torch.Tensor) -> torch.Tensor:
    return torch.where(d > 0, d, torch.ones_like(d))  # an all-equal block has scale 0: divide by 1 instead


def dequantize(q: torch.Tensor, d: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """The float32 weight [rows, columns] of codes `q` on the grid `q * d + m` (per row and group of 32 columns)."""
    rows, columns = q.shape
    return (q.reshape(rows, -1, GROUP).float() * d[..., None] + m[..., None]).reshape(rows, columns)


def q4_1_blocks(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """(q, d, m) if the float32 weight is exactly Q4_1 blocks along its rows, else None."""
    w = _groups(weight)
    if w is None:
        return None
    m = w.amin(dim=-1)
    d = (w.amax(dim=-1) - m) / 15
    q = torch.round((w - m[..., None]) / nonzero(d)[..., None]).clamp(0, 15)
    if not _reproduces(q * d[..., None] + m[..., None], w):
        return None
    return q.reshape(weight.shape).to(torch.int32), d, m


class Q8Linear(torch.nn.Module):
    """A bias-free linear layer holding Q8_0 blocks exactly (int8, one scale per 32 inputs), as one int8 matmul
    per group. SmolLM2's output head is its Q8_0 embedding; in bfloat16 it is a quarter of each decode step."""

    def __init__(self, q: torch.Tensor, d: torch.Tensor):
        super().__init__()
        groups = q.shape[1] // GROUP
        self.weights = [q[:, g * GROUP : (g + 1) * GROUP].contiguous() for g in range(groups)]
        self.scales = [d[:, g].to(torch.bfloat16).contiguous() for g in range(groups)]
        self.out_features = q.shape[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.reshape(-1, x.shape[-1]).to(torch.bfloat16)
        out = torch.ops.aten._weight_int8pack_mm(x[:, :GROUP].contiguous(), self.weights[0], self.scales[0]).float()
        for g in range(1, len(self.weights)):
            part = x[:, g * GROUP : (g + 1) * GROUP].contiguous()
            out += torch.ops.aten._weight_int8pack_mm(part, self.weights[g], self.scales[g]).float()
        return out


def to_q8(linear: torch.nn.Linear) -> Q8Linear | None:
    """The layer as exact Q8_0 blocks (w = d*q, |q| <= 127, groups of 32), if its float32 weight is that."""
    w = _groups(linear.weight)
    if w is None or linear.bias is not None:
        return None
    d = w.abs().amax(dim=-1) / 127
    q = torch.round(w / nonzero(d)[..., None]).clamp(-127, 127)
    if not _reproduces(q * d[..., None], w):
        return None
    return Q8Linear(q.reshape(linear.weight.shape).to(torch.int8), d)


Codes = tuple[torch.Tensor, torch.Tensor]  # flat positions in a weight and the 4-bit codes they take there


def to_int4(linear: torch.nn.Linear, changed: Codes | None = None) -> Int4Linear | None:
    """The layer packed, if its weight is exact Q4_1 blocks; `changed` codes (an adapter merged in,
    `local_int4_merge`) replace the block's own on the same grid."""
    if linear.bias is not None:
        return None
    blocks = q4_1_blocks(linear.weight)
    if blocks is None:
        return None
    q, d, m = blocks
    if changed is not None:
        where, codes = changed
        q = q.flatten().clone()
        q[where.long()] = codes.to(q.dtype)
        q = q.reshape(linear.weight.shape)
    packed = torch.ops.aten._convert_weight_to_int4pack_for_cpu(q.contiguous(), 2)
    scales_and_zeros = torch.stack([d.t(), (m + 8 * d).t()], dim=-1).contiguous().to(torch.bfloat16)
    return Int4Linear(packed, scales_and_zeros, linear.out_features, linear.in_features)


def pack_gguf_weights(model: Any, changed: dict[str, Codes] | None = None) -> int:
    """Swap every linear layer that is exact Q4_1 blocks for an int4 one, then cast the rest of the model to
    bfloat16. Call on a model loaded in float32. Returns how many layers were packed. `changed`: codes that
    replace the blocks' own, by layer name (an adapter merged in).

    Other layers stay in bfloat16 here. SmolLM2's output head is its Q8_0 embedding: take `to_q8` of it before
    calling this (the cast loses the exact blocks); the lean decode path uses that copy.
    """
    packed = 0
    changed = changed or {}
    for name, child in list(model.named_modules()):
        if isinstance(child, torch.nn.Linear) and (int4 := to_int4(child, changed.get(name))) is not None:
            parent, _, attribute = name.rpartition(".")
            setattr(model.get_submodule(parent), attribute, int4)
            packed += 1
    model.to(torch.bfloat16)
    return packed
