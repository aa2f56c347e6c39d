"""What the pipeline asks of a causal language model, for any Hugging Face causal LM and its tokenizer: the
probability of a token at every position, weighted losses of continuations, and batched continuation with stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Ids = list[int]
WINDOW = 5  # Toolformer's loss weights: w_t proportional to max(0, 1 - 0.2 t) over the next five tokens


def loss_weights(n: int, window: int = WINDOW) -> list[float]:
    raw = [max(0.0, 1.0 - t / window) for t in range(min(n, window))]
    total = sum(raw) or 1.0
    return [w / total for w in raw]


@dataclass
class LM:
    """A causal LM and its tokenizer; `batch` rows go through the model at once."""

    model: Any
    tokenizer: Any
    batch: int = 256

    def encode(self, text: str) -> Ids:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=True))

    @property
    def pad(self) -> int:
        pad = self.tokenizer.pad_token_id
        return int(pad if pad is not None else self.tokenizer.eos_token_id)

    def _log_probs(self, rows: Sequence[Ids]) -> Any:
        """Log-probabilities of the next token at every position of right-padded `rows` (causal: padding after a
        row's end changes nothing before it)."""
        import torch

        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
        with torch.inference_mode():
            logits = self.model(input_ids=ids).logits.float()
        return torch.log_softmax(logits, dim=-1)

    def token_probabilities(self, rows: Sequence[Ids], token: int) -> list[list[float]]:
        """For each row, P(token | row[:i]) for i = 1..len(row): how much the model wants `token` next there."""
        out: list[list[float]] = []
        for start in range(0, len(rows), self.batch):
            chunk = rows[start : start + self.batch]
            lp = self._log_probs(chunk)[:, :, token].exp()
            out += [lp[i, : len(r)].tolist() for i, r in enumerate(chunk)]
        return out

    def losses(self, rows: Sequence[Ids], starts: Sequence[int], window: int = WINDOW) -> list[float]:
        """Toolformer's weighted loss of the tokens row[start:start+window] given everything before them."""
        out: list[float] = []
        for first in range(0, len(rows), self.batch):
            chunk, heads = rows[first : first + self.batch], starts[first : first + self.batch]
            lp = self._log_probs(chunk)
            for i, (row, s) in enumerate(zip(chunk, heads, strict=True)):
                weights = loss_weights(len(row) - s, window)
                out.append(-sum(w * float(lp[i, s + t - 1, row[s + t]]) for t, w in enumerate(weights)))
        return out

    def continue_rows(
        self,
        rows: Sequence[Ids],
        *,
        stops: Sequence[str],
        max_new_tokens: int,
        sample: bool = False,
        temperature: float = 1.0,
        banned: Sequence[int] = (),
        seed: int = 0,
    ) -> list[Ids]:
        """Each row continued (greedily, or sampled) until its new text holds one of `stops` or the budget ends;
        returns the new tokens of each row, up to and including the one that completed the stop."""
        import torch
        from transformers import LogitsProcessorList, StoppingCriteria, StoppingCriteriaList

        decode = self.decode

        class Stop(StoppingCriteria):
            def __init__(self, prompt: int):
                self.prompt = prompt

            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                done = [any(s in decode(row[self.prompt :].tolist()) for s in stops) for row in input_ids]
                return torch.tensor(done, dtype=torch.bool)

        class Ban:
            def __call__(self, input_ids: Any, scores: Any) -> Any:
                scores[:, list(banned)] = -float("inf")
                return scores

        out: list[Ids] = []
        torch.manual_seed(seed)
        for first in range(0, len(rows), self.batch):
            chunk = rows[first : first + self.batch]
            width = max(len(r) for r in chunk)
            ids = torch.full((len(chunk), width), self.pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for i, r in enumerate(chunk):  # left padding: every row's next token comes at the same column
                ids[i, width - len(r) :] = torch.tensor(r, dtype=torch.long)
                mask[i, width - len(r) :] = 1
            with torch.inference_mode():
                made = self.model.generate(
                    input_ids=ids,
                    attention_mask=mask,
                    max_new_tokens=max_new_tokens,
                    do_sample=sample,
                    temperature=temperature if sample else None,
                    top_k=None,
                    top_p=None,
                    pad_token_id=self.pad,
                    eos_token_id=None,
                    stopping_criteria=StoppingCriteriaList([Stop(width)]),
                    logits_processor=LogitsProcessorList([Ban()]) if banned else None,
                )
            for row in made[:, width:].tolist():
                out.append(_until_stop(row, stops, decode, self.pad))
        return out


def _until_stop(row: Ids, stops: Sequence[str], decode: Any, pad: int) -> Ids:
    """The shortest head of `row` whose text holds a stop (rows that stopped early are padded after it)."""
    for end in range(1, len(row) + 1):
        if any(s in decode(row[:end]) for s in stops):
            return row[:end]
    while row and row[-1] == pad:
        row = row[:-1]
    return row
