"""An adapter merged into int4 weights (`toollab.models.local_int4_merge`): GPTQ on the GGUF's own grid keeps
what rounding to the nearest code loses, the changed codes pack as any Q4_1 block does, and they apply only to
the GGUF file they were computed from."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from toollab.models.local_int4_merge import read_merge, requantize, write_merge  # noqa: E402
from toollab.models.local_quant import GROUP, dequantize, to_int4  # noqa: E402


def _grid(rows: int = 48, columns: int = 128, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Q4_1 blocks as a GGUF holds them: codes, scales, minima, and the weight they make."""
    generator = torch.Generator().manual_seed(seed)
    q = torch.randint(0, 16, (rows, columns), generator=generator)
    q[:, ::GROUP], q[:, 1::GROUP] = 0, 15  # every block holds its minimum and its maximum
    groups = columns // GROUP
    d = torch.rand(rows, groups, generator=generator) * 0.02 + 0.005
    m = torch.randn(rows, groups, generator=generator) * 0.05
    weight = (q.view(rows, groups, GROUP) * d[..., None] + m[..., None]).view(rows, columns)
    return q.int(), d, m, weight


def _inputs(columns: int = 128, n: int = 600, seed: int = 1) -> torch.Tensor:
    """Inputs that vary along few directions, with a few large channels, as a transformer's do (on inputs
    without correlation there is nothing to carry an error onto)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 12, generator=generator) @ torch.randn(12, columns, generator=generator)
    x += 0.05 * torch.randn(n, columns, generator=generator)
    x[:, :4] *= 8
    return x


def _rounded(weight: torch.Tensor, d: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    rows, columns = weight.shape
    groups = weight.view(rows, -1, GROUP)
    return torch.round((groups - m[..., None]) / d[..., None]).clamp(0, 15).view(rows, columns).int()


def test_weights_already_on_the_grid_keep_their_codes():
    q, d, m, weight = _grid()
    x = _inputs()
    assert torch.equal(requantize(weight, d, m, x.double().t() @ x.double()), q)


def test_a_small_update_survives_where_rounding_to_the_nearest_code_drops_it():
    q, d, m, weight = _grid()
    x = _inputs()
    generator = torch.Generator().manual_seed(2)
    # a low-rank update, smaller than half a step everywhere: what an adapter adds
    update = torch.randn(48, 4, generator=generator) @ torch.randn(4, 128, generator=generator)
    update *= 0.4 * float(d.min()) / float(update.abs().max())
    target = weight + update
    nearest = _rounded(target, d, m)
    assert torch.equal(nearest, q)  # rounded to the nearest code, the update is gone
    codes = requantize(target, d, m, x.double().t() @ x.double())
    assert not torch.equal(codes, q) and codes.min() >= 0 and codes.max() <= 15

    def error(codes: torch.Tensor) -> float:
        return float((x @ (dequantize(codes, d, m) - target).t()).norm())

    assert error(codes) < 0.9 * error(nearest)  # the layer's outputs, not its weights, stay close


def test_changed_codes_pack_on_the_blocks_own_grid():
    q, d, m, weight = _grid()
    linear = torch.nn.Linear(128, 48, bias=False)
    linear.weight.data = weight
    new = q.clone()
    new[:, 0] = 1  # a block's minimum code moved: its grid must not be read again from the changed values
    where = (new != q).flatten().nonzero().flatten()
    packed = to_int4(linear, (where.int(), new.flatten()[where].to(torch.uint8)))
    x = torch.randn(3, 128)
    expected = x @ dequantize(new, d, m).t()
    assert torch.allclose(packed(x).float(), expected, atol=0.05, rtol=0.02)  # bfloat16 activations


def test_codes_apply_only_to_the_gguf_file_and_adapter_weights_they_were_computed_from(tmp_path):
    gguf, other = tmp_path / "a.gguf", tmp_path / "b.gguf"
    gguf.write_bytes(b"weights a")
    other.write_bytes(b"weights b")
    (tmp_path / "adapter_model.safetensors").write_bytes(b"adapter 1")
    changes = {"model.layers.0.mlp.up_proj": (torch.tensor([3, 7], dtype=torch.int32), torch.tensor([1, 14]))}
    write_merge(tmp_path, {k: (w, c.to(torch.uint8)) for k, (w, c) in changes.items()}, gguf)
    read = read_merge(tmp_path, gguf)
    assert read is not None and torch.equal(read["model.layers.0.mlp.up_proj"][1].long(), torch.tensor([1, 14]))
    assert read_merge(tmp_path, other) is None  # another GGUF: the adapter stays apart instead
    assert read_merge(tmp_path / "nothing", gguf) is None
    (tmp_path / "adapter_model.safetensors").write_bytes(b"adapter 2, trained again")
    assert read_merge(tmp_path, gguf) is None  # stale codes are left unused
