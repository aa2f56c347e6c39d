"""A lean forward pass for Llama-architecture models whose linear layers are int4, for decoding on CPU.

transformers' forward is general: per layer it builds masks, dispatches through attention interfaces and cache
objects, and runs q, k, v (and gate, up) as separate matmuls. For one token at a time on two cores that Python
and dispatch work costs about as much as the arithmetic. This pass does the same computation with fused
q|k|v and gate|up int4 matmuls, key-value tensors of its own, and torch's scaled_dot_product_attention with
grouped-query heads. It is used only when the model is a `LlamaForCausalLM` packed by `local_quant`, and
tests check it against the transformers forward on the same weights.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from toollab.models.local_quant import Int4Linear


def _fuse(layers: list[Int4Linear]) -> Int4Linear:
    """One int4 layer computing several at once (their outputs side by side); their low-rank updates, if any,
    become one: the `down` matrices stacked, the `up` ones block-diagonal."""
    packed = torch.cat([layer.packed for layer in layers], dim=0)
    scales = torch.cat([layer.scales_and_zeros for layer in layers], dim=1)
    fused = Int4Linear(packed, scales, sum(layer.out_features for layer in layers), layers[0].in_features)
    if any(layer.down is not None for layer in layers):
        # stored transposed: downs side by side ([in, sum of ranks]), ups block-diagonal ([sum of ranks, sum out])
        downs = [layer.down if layer.down is not None else torch.zeros(layer.in_features, 0) for layer in layers]
        ups = [layer.up if layer.up is not None else torch.zeros(0, layer.out_features) for layer in layers]
        fused.down, fused.up = torch.cat(downs, dim=1).contiguous(), torch.block_diag(*ups).contiguous()
    return fused


class LeanCache:
    """Keys and values of the positions read so far, per layer, grown by doubling. Float32: attention's small
    matrix products ran at 55 tok/s in bfloat16 and 71 in float32 here (CPU bfloat16 GEMMs are slow at these
    shapes), and float32 attention is closer to the float32 model."""

    def __init__(self, layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype = torch.float32):
        self.shape = (kv_heads, head_dim)
        self.dtype = dtype
        self.keys: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.layers = layers
        self.length = 0

    def reserve(self, total: int) -> None:
        capacity = self.keys[0].shape[1] if self.keys else 0
        if total <= capacity:
            return
        size = max(total, 2 * capacity, 256)
        for i in range(self.layers):
            k = torch.zeros(self.shape[0], size, self.shape[1], dtype=self.dtype)
            v = torch.zeros_like(k)
            if capacity:
                k[:, : self.length] = self.keys[i][:, : self.length]
                v[:, : self.length] = self.values[i][:, : self.length]
            if i < len(self.keys):
                self.keys[i], self.values[i] = k, v
            else:
                self.keys.append(k)
                self.values.append(v)

    def crop(self, length: int) -> None:
        """Forget the positions from `length` on."""
        self.length = min(self.length, length)

    def copy_prefix(self, other: LeanCache, length: int) -> None:
        """Hold the first `length` positions of `other` (a prompt prefix another sequence has already read)."""
        self.reserve(length)
        for mine, theirs in ((self.keys, other.keys), (self.values, other.values)):
            for i in range(self.layers):
                mine[i][:, :length] = theirs[i][:, :length]
        self.length = length


class LeanLlama:
    """Prefill and decode for a packed Llama model. The fused weights are shared; each caller keeps a cache."""

    @staticmethod
    def supports(model: Any) -> bool:
        if type(model).__name__ != "LlamaForCausalLM" or model.config.hidden_act != "silu":
            return False
        layer = model.model.layers[0]
        names = ("q_proj", "k_proj", "v_proj", "o_proj")
        return all(isinstance(getattr(layer.self_attn, n), Int4Linear) for n in names) and all(
            isinstance(getattr(layer.mlp, n), Int4Linear) for n in ("gate_proj", "up_proj", "down_proj")
        )

    def __init__(self, model: Any, head: Any = None):
        """`head`: the output layer to use instead of the model's (an exact Q8_0 copy, see `local_quant`)."""
        config = model.config
        self.model = model
        self.heads = config.num_attention_heads
        self.kv_heads = config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.eps = config.rms_norm_eps
        self.layers: list[tuple[Any, ...]] = []
        for layer in model.model.layers:
            attn, mlp = layer.self_attn, layer.mlp
            self.layers.append(
                (
                    layer.input_layernorm.weight.float(),
                    _fuse([attn.q_proj, attn.k_proj, attn.v_proj]),
                    attn.o_proj,
                    layer.post_attention_layernorm.weight.float(),
                    _fuse([mlp.gate_proj, mlp.up_proj]),
                    mlp.down_proj,
                    mlp.gate_proj.out_features,
                )
            )
        self.norm = model.model.norm.weight.float()
        self.embed = model.model.embed_tokens
        self.head = head if head is not None else model.lm_head
        self.rotary = model.model.rotary_emb
        self.q_size = self.heads * self.head_dim
        self.kv_size = self.kv_heads * self.head_dim

    def new_cache(self) -> LeanCache:
        return LeanCache(len(self.layers), self.kv_heads, self.head_dim)

    def _rms(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x.float(), weight.shape, weight, self.eps).to(torch.bfloat16)

    @torch.inference_mode()
    def forward(self, ids: list[int], cache: LeanCache) -> torch.Tensor:
        """Read `ids` after the cached positions; the logits of the last one (float32)."""
        n, start = len(ids), cache.length
        cache.reserve(start + n)
        positions = torch.arange(start, start + n).unsqueeze(0)
        h = self.embed(torch.tensor(ids)).to(torch.bfloat16)  # [n, hidden]
        cos, sin = self.rotary(h.unsqueeze(0), positions)
        cos, sin = cos[0].unsqueeze(0).to(torch.bfloat16), sin[0].unsqueeze(0).to(torch.bfloat16)  # [1, n, dim]
        half = self.head_dim // 2
        mask = None
        if n > 1:  # new tokens see every cached position and the new ones up to themselves
            mask = torch.ones(n, start + n, dtype=torch.bool).tril(diagonal=start)
        for i, (norm_in, qkv, o_proj, norm_post, gate_up, down, inner) in enumerate(self.layers):
            x = self._rms(h, norm_in)
            qk, v = qkv(x).split([self.q_size + self.kv_size, self.kv_size], dim=-1)
            qk = qk.view(n, self.heads + self.kv_heads, self.head_dim).transpose(0, 1)  # [heads, n, dim]
            qk = qk * cos + torch.cat((-qk[..., half:], qk[..., :half]), dim=-1) * sin  # rotary, q and k at once
            q, k = qk[: self.heads], qk[self.heads :]
            v = v.view(n, self.kv_heads, self.head_dim).transpose(0, 1)
            cache.keys[i][:, start : start + n] = k
            cache.values[i][:, start : start + n] = v
            keys, values = cache.keys[i][:, : start + n], cache.values[i][:, : start + n]
            q = q.float()
            if n == 1:  # one query: group the query heads by the key-value head they share, no copies
                grouped = q.reshape(self.kv_heads, self.heads // self.kv_heads, self.head_dim)
                scores = torch.bmm(grouped, keys.transpose(1, 2)) * self.head_dim**-0.5
                attn = torch.bmm(scores.softmax(-1), values).reshape(self.heads, 1, self.head_dim)
            else:  # reading a prompt: once per round, torch's kernel
                attn = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask, enable_gqa=True)
            attn = attn.to(torch.bfloat16)
            h = h + o_proj(attn.transpose(0, 1).reshape(n, self.q_size))
            x = self._rms(h, norm_post)
            gate, up = gate_up(x).split([inner, inner], dim=-1)
            h = h + down(F.silu(gate) * up)
        cache.length = start + n
        last = self._rms(h[-1:], self.norm)
        return self.head(last)[0].float()

    @torch.inference_mode()
    def forward_rows(self, tokens: list[int], caches: list[LeanCache]) -> torch.Tensor:
        """One new token for each of several sequences, each after its own cached positions (lengths may
        differ): the logits of each, [rows, vocabulary] (float32). The weights are read once for all rows,
        which is what batching buys on a memory-bound CPU; attention stays per row, over its own cache."""
        rows = len(tokens)
        for cache in caches:
            cache.reserve(cache.length + 1)
        starts = [cache.length for cache in caches]
        h = self.embed(torch.tensor(tokens)).to(torch.bfloat16)  # [rows, hidden]
        cos, sin = self.rotary(h.unsqueeze(1), torch.tensor(starts).unsqueeze(1))  # [rows, 1, dim]
        cos, sin = cos.to(torch.bfloat16), sin.to(torch.bfloat16)
        half, group = self.head_dim // 2, self.heads // self.kv_heads
        attn = torch.empty(rows, self.heads, self.head_dim)
        for i, (norm_in, qkv, o_proj, norm_post, gate_up, down, inner) in enumerate(self.layers):
            x = self._rms(h, norm_in)
            qk, v = qkv(x).split([self.q_size + self.kv_size, self.kv_size], dim=-1)
            qk = qk.view(rows, self.heads + self.kv_heads, self.head_dim)
            qk = qk * cos + torch.cat((-qk[..., half:], qk[..., :half]), dim=-1) * sin
            q, k = qk[:, : self.heads].float(), qk[:, self.heads :]
            v = v.view(rows, self.kv_heads, self.head_dim)
            for row, (cache, start) in enumerate(zip(caches, starts, strict=True)):
                cache.keys[i][:, start] = k[row]
                cache.values[i][:, start] = v[row]
                keys, values = cache.keys[i][:, : start + 1], cache.values[i][:, : start + 1]
                grouped = q[row].reshape(self.kv_heads, group, self.head_dim)
                scores = torch.bmm(grouped, keys.transpose(1, 2)) * self.head_dim**-0.5
                attn[row] = torch.bmm(scores.softmax(-1), values).reshape(self.heads, self.head_dim)
            h = h + o_proj(attn.to(torch.bfloat16).reshape(rows, self.q_size))
            x = self._rms(h, norm_post)
            gate, up = gate_up(x).split([inner, inner], dim=-1)
            h = h + down(F.silu(gate) * up)
        for cache, start in zip(caches, starts, strict=True):
            cache.length = start + 1
        return self.head(self._rms(h, self.norm)).float()
