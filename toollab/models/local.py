"""The `local` backend: a Hugging Face causal LM on CPU through transformers, with tool calls as text.

Between the rounds of a run the prompt only grows at the end, so the key-value cache of the longest common
prefix of token ids is kept and only the new tokens are read (`Usage.cached_input_tokens` counts the rest).
Decoding is a plain loop over single-token forward passes: greedy, or sampled with temperature and top-p.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from toollab.formats import get_format, tools_to_openai
from toollab.formats.base import Format, name_in
from toollab.harness.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    Usage,
    last_request,
    results_since_request,
)
from toollab.harness.model import ModelError, ModelResponse
from toollab.harness.request import CallPolicy, RequestParams
from toollab.models import local_weights
from toollab.models.demos import DemoPicker, with_demos
from toollab.models.local_gate import decide
from toollab.models.local_steering import (
    PENALTY,
    Grounding,
    digit_tokens,
    extra_call_cut,
    loop_token,
    repeat_token,
    runaway_number,
    same_again,
)
from toollab.models.local_vote import VOTE_TEMPERATURE, majority
from toollab.models.local_weights import LoadedModel
from toollab.tools import ToolSpec


class TokenMatcher(Protocol):
    """One decode's grammar state (see `toollab.constrain`)."""

    stats: Any

    def mask(self, logits: Any) -> None: ...
    def accept(self, token: int) -> None: ...
    def finished(self) -> bool: ...
    def can_end(self) -> bool: ...


class DecodeConstraint(Protocol):
    """Makes a grammar matcher for each constrained decode (`toollab.constrain.ToolGrammar` is one)."""

    def start(
        self,
        params: RequestParams,
        format: Format,
        tokenizer: Any,
        vocab_size: int,
        stop_ids: Sequence[int],
        greedy: bool,
    ) -> TokenMatcher: ...


@dataclass
class Generation:
    """One decode: the text, its tokens, and what it cost."""

    text: str
    prompt_tokens: int
    cached_tokens: int
    new_tokens: int
    # "eos", "stop" (a stop sequence), "invented_result" (the model began writing a tool result itself: cut
    # there), "extra_call" (it added a call that repeats one of the turn's or asks nothing the request asked:
    # cut there), "grammar" (a constraint's grammar ended) or "length"
    stop_reason: str
    first_token_seconds: float
    decode_seconds: float
    truncated: bool = False  # constrained, out of tokens in the middle of the grammar (a call left unfinished)


@dataclass(frozen=True)
class TurnContext:
    """What steering a turn's decoding needs: the user's `request` and the `results` since (where values should
    come from), the `finish` action's name, and the last turn's text when every call in it failed (`failed_turn`:
    written again word for word it would fail again, so the loop guard makes it differ)."""

    request: str = ""
    results: str = ""
    finish: str | None = None
    failed_turn: str | None = None


def failed_turn(messages: Sequence[Message]) -> str | None:
    """The last assistant turn's text when it made calls and every one failed (None otherwise)."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    if last < 0:
        return None
    turn = messages[last]
    results = [m for m in messages[last + 1 :] if isinstance(m, ToolResultMessage)]
    if not isinstance(turn, AssistantMessage) or not turn.tool_calls or not results:
        return None
    return turn.raw if all(r.is_error for r in results) else None


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class LocalModel:
    """A local model. `path`: a model folder or a .gguf file; None is the embedded SmolLM2-135M-Instruct.

    `format` is the wire format for tool calls; when None, the model's own chat template is used if it renders
    `tools=`, and `hermes` otherwise. `constraint` (a `toollab.constrain.ToolGrammar`) constrains every turn that
    offers tools to well-formed, schema-valid calls, under each request's tool choice; a call cut off by
    `max_new_tokens` then becomes a "truncated" parse error, never a malformed call passed on. Without a
    constraint the tool choice cannot be enforced: the tools are only described in the prompt. `adapter`: a LoRA
    adapter folder (`toollab train`), applied once at load: merged into float weights, kept beside int4 ones.
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        format: str | None = None,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        dtype: str = "auto",
        constraint: DecodeConstraint | None = None,
        policy: CallPolicy | None = None,
        loop_guard: bool = False,
        dedupe_calls: bool = False,
        grounded_calls: bool = False,
        grounding: float = 0.0,
        demos: DemoPicker | None = None,
        adapter: str | None = None,
        votes: int = 1,
    ):
        self.path = path
        self.format_name = format
        self.format: Format = get_format(format)
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.stop = tuple(stop) + self.format.stop
        self.result_marker = self.format.result_marker
        self.dtype = dtype
        self.adapter = adapter  # a LoRA adapter folder, applied to the weights at load
        self.constraint = constraint
        self.policy = policy  # how an agent should ask this model for calls (None: the agent's default)
        self.loop_guard = loop_guard  # steer away from the token that would go round a loop again
        self.dedupe_calls = dedupe_calls  # end the turn where it starts repeating one of its own calls
        self.grounded_calls = grounded_calls  # ... or adds a call with nothing from the request in it
        self.grounding = grounding  # added to the logits of the request's and the results' tokens in a calling turn
        self.demos = demos  # worked examples shown before the request when tools are offered
        self.votes = votes  # a calling turn decodes this many candidates and keeps the calls most of them make
        self.name = f"local:{path}" if path else "local"
        self._loaded: LoadedModel | None = None
        self._cache: Any = None  # the key-value cache of the last decode (LeanCache or transformers' DynamicCache)
        self._cache_ids: list[int] = []  # the token ids that cache holds
        self._generator: Any = None

    # ---- loading and prompts ------------------------------------------------------------------------------

    def load(self) -> LoadedModel:
        """Load the weights now (once per process); `request` does it on first use otherwise."""
        if self._loaded is None:
            try:
                self._loaded = local_weights.load(self.path, self.dtype, self.adapter)
            except (OSError, ValueError) as exc:
                raise ModelError(f"cannot load the local model: {exc}", source="harness") from exc
        return self._loaded

    def is_loaded(self) -> bool:
        try:
            return self._loaded is not None or local_weights.is_loaded(self.path, self.dtype, self.adapter)
        except (OSError, ValueError):
            return False  # a bad path: `load` says so

    @property
    def display_name(self) -> str:
        return local_weights.model_label(self.path, self.adapter)

    @property
    def uses_template_tools(self) -> bool:
        return self.format_name is None and self.load().template_takes_tools

    def prompt(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
        """The full prompt text for the next assistant turn."""
        tokenizer = self.load().tokenizer
        if self.demos is not None and tools:
            messages = with_demos(messages, self.demos(last_request(messages)))
        if self.uses_template_tools:
            return tokenizer.apply_chat_template(
                _template_messages(messages),
                tools=tools_to_openai(tools) or None,
                add_generation_prompt=True,
                tokenize=False,
            )
        return tokenizer.apply_chat_template(
            self.format.to_chat(messages, tools), add_generation_prompt=True, tokenize=False
        )

    # ---- the Model interface ---------------------------------------------------------------------------

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        if self._loaded is None:
            await asyncio.to_thread(self.load)  # the first load takes about 20 s: keep the event loop free
        tools = params.tools
        text = self.prompt(messages, tools)
        try:
            params, gated = await decide(self, messages, params, text)
            context = TurnContext(
                last_request(messages), results_since_request(messages), params.finish, failed_turn(messages)
            )
            candidates = await local_weights.on_torch_thread_async(self._candidates, text, params, context)
        except ValueError as exc:  # a constraint that cannot serve this format or tool choice
            raise ModelError(f"constrained decoding: {exc}", source="harness") from exc
        except Exception as exc:
            raise ModelError(f"local generation failed: {type(exc).__name__}: {exc}", source="harness") from exc
        # a turn told to answer is read as prose: a call written in it (outside the grammar's envelope) is not run
        readable = tools if params.tool_choice != "none" else ()
        messages_out = [self._message(generation, readable) for generation, _ in candidates]
        chosen, agreeing = majority(messages_out)
        generation, matcher = candidates[chosen]
        message = messages_out[chosen]
        usage = Usage(
            input_tokens=generation.prompt_tokens,
            output_tokens=sum(g.new_tokens for g, _ in candidates),
            cached_input_tokens=generation.cached_tokens,
        )
        metadata: dict[str, Any] = {
            "stop_reason": generation.stop_reason,
            "first_token_seconds": generation.first_token_seconds,
            "decode_seconds": sum(g.decode_seconds for g, _ in candidates),
        }
        if matcher is not None:
            metadata["grammar"] = matcher.stats.to_dict()
        if gated is not None:
            metadata["gate"] = gated
        if len(candidates) > 1:
            metadata["votes"] = {"candidates": len(candidates), "agreeing": agreeing, "chosen": chosen}
        return ModelResponse(message, usage, raw=generation.text, metadata=metadata)

    def _message(self, generation: Generation, tools: Sequence[ToolSpec]) -> AssistantMessage:
        if generation.truncated:
            return self._truncated(generation, tools)
        if tools:
            return self.format.parse(generation.text, tools)
        return AssistantMessage(content=generation.text.strip() or None, raw=generation.text)

    def _truncated(self, generation: Generation, tools: Sequence[ToolSpec]) -> AssistantMessage:
        """A constrained turn cut off mid-call: its complete calls, and the unfinished one as a parse error."""
        parsed = self.format.parse(generation.text, tools)
        complete = [c for c in parsed.tool_calls if c.parse_error is None]
        broken = [c for c in parsed.tool_calls if c.parse_error is not None]
        if broken:
            name, partial = broken[-1].name, broken[-1].arguments
        elif complete:  # it reads as a call, but the grammar says it was not finished
            last = complete.pop()
            name, partial = last.name, last.arguments
        else:
            name, partial = name_in(generation.text), generation.text
        error = (
            f"truncated: the output reached max_new_tokens ({self.max_new_tokens}) before the call was complete; "
            "write shorter arguments or raise max_new_tokens"
        )
        unfinished = ToolCall(name=name, arguments=partial, parse_error=error)
        return AssistantMessage(content=parsed.content, tool_calls=[*complete, unfinished], raw=generation.text)

    # ---- decoding -------------------------------------------------------------------------------------

    def continuation_logprob(self, prompt: str, continuation: str) -> float:
        """The log-probability the model gives to `continuation` right after `prompt` (teacher-forced). The cache
        keeps the prompt, so decoding the turn afterwards reads only what changed."""
        return local_weights.on_torch_thread(self._continuation_logprob, prompt, continuation)

    def _continuation_logprob(self, prompt: str, continuation: str) -> float:
        import torch

        loaded = self.load()
        ids = loaded.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        follow = loaded.tokenizer(continuation, add_special_tokens=False)["input_ids"]
        with loaded.lock, torch.inference_mode():
            forward = self._lean_forward if loaded.lean is not None else self._hf_forward
            reuse = common_prefix(self._cache_ids, ids) if self._cache is not None else 0
            logits = forward(ids, min(reuse, len(ids) - 1))
            total = 0.0
            for i, token in enumerate(follow):
                total += float(torch.log_softmax(logits.float(), dim=-1)[token])
                if i < len(follow) - 1:
                    logits = forward([token], None)
            self._cache_ids = (ids + follow[:-1])[: self._cached_length()]
        return total

    def generate(self, prompt: str, max_new_tokens: int | None = None) -> Generation:
        """Decode a continuation of `prompt`, reusing the cached prefix of the last decode."""
        return local_weights.on_torch_thread(self._generate, prompt, max_new_tokens)

    def _candidates(
        self, prompt: str, params: RequestParams, context: TurnContext
    ) -> list[tuple[Generation, TokenMatcher | None]]:
        """The turn as decoded, and for a calling turn under `votes`, more candidates sampled at
        `VOTE_TEMPERATURE` from a generator seeded by the prompt (the same turn draws the same candidates)."""
        first = self._generate_turn(prompt, params, context)
        if self.votes <= 1 or not params.tools or params.tool_choice == "none":
            return [first]
        import torch

        sampler = torch.Generator().manual_seed(int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:8], "big"))
        sampling = (VOTE_TEMPERATURE, sampler)
        return [first, *(self._generate_turn(prompt, params, context, sampling) for _ in range(self.votes - 1))]

    def _generate_turn(
        self,
        prompt: str,
        params: RequestParams,
        context: TurnContext,
        sampling: tuple[float, Any] | None = None,
    ) -> tuple[Generation, TokenMatcher | None]:
        """One assistant turn, constrained when there is a constraint and the turn offers tools. `sampling`:
        (temperature, torch generator) instead of the model's own."""
        matcher = None
        if self.constraint is not None and params.tools:
            loaded = self.load()
            matcher = self.constraint.start(
                params,
                self.format,
                loaded.tokenizer,
                loaded.model.config.vocab_size,
                sorted(loaded.eos_ids),
                greedy=(sampling[0] if sampling else self.temperature) <= 0,
            )
        return self._generate(prompt, None, matcher, context, sampling), matcher

    def _generate(
        self,
        prompt: str,
        max_new_tokens: int | None,
        matcher: TokenMatcher | None = None,
        context: TurnContext | None = None,
        sampling: tuple[float, Any] | None = None,
    ) -> Generation:
        import torch

        loaded = self.load()
        tokenizer = loaded.tokenizer
        limit = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        with loaded.lock, torch.inference_mode():
            started = time.perf_counter()
            forward = self._lean_forward if loaded.lean is not None else self._hf_forward
            reuse = common_prefix(self._cache_ids, ids) if self._cache is not None else 0
            reuse = min(reuse, len(ids) - 1)  # at least one token must be read to get the next logits
            logits = forward(ids, reuse)
            first_token = time.perf_counter() - started
            generated: list[int] = []
            stop_reason, text = "length", ""
            context = context or TurnContext()
            request, results = context.request, context.results
            failed = tokenizer(context.failed_turn or "", add_special_tokens=False)["input_ids"]

            def structural(tokens: Sequence[int]) -> bool:
                return any(c in tokenizer.decode(list(tokens)) for c in '{}"<>[]')

            source = f"{request}\n{results}" if self.grounded_calls else None  # what an added call must draw on
            steer = None
            if self.grounding and matcher is not None and request and self.format.envelope is not None:
                steer = Grounding(tokenizer, request, results, self.grounding, self.format, context.finish)
            while len(generated) < limit:
                if steer is not None:
                    steer.bias(logits, generated, text)
                if self.loop_guard:
                    again = same_again(generated, failed)
                    for looping in (loop_token(generated), repeat_token(generated, structural), again):
                        if looping is not None:
                            logits[looping] -= PENALTY
                    if runaway_number(text):
                        logits[list(digit_tokens(tokenizer))] -= PENALTY
                if matcher is not None:
                    matcher.mask(logits)
                token = self._pick(logits, *(sampling or ()))
                if token in loaded.eos_ids:
                    stop_reason = "eos"
                    break
                generated.append(token)
                text = tokenizer.decode(generated, skip_special_tokens=False)
                if matcher is not None:
                    matcher.accept(token)
                    if matcher.finished():
                        stop_reason = "grammar"
                        break
                cut = stop_at(text, self.stop, self.result_marker)
                if cut is not None:
                    text, stop_reason = cut
                    break
                if steer is not None:
                    steer.update(text)
                if (self.dedupe_calls or self.grounded_calls) and matcher is not None and matcher.can_end():
                    before = extra_call_cut(text, self.format, self.dedupe_calls, source)
                    if before is not None:
                        text, stop_reason = before, "extra_call"
                        break
                if len(generated) == limit:
                    break
                logits = forward([token], None)
            decode = time.perf_counter() - started - first_token
            self._cache_ids = (ids + generated)[: self._cached_length()]
        truncated = matcher is not None and stop_reason == "length" and not matcher.can_end()
        return Generation(
            text,
            len(ids),
            reuse,
            len(generated) + (stop_reason == "eos"),
            stop_reason,
            first_token,
            decode,
            truncated,
        )

    def _lean_forward(self, ids: list[int], reuse: int | None) -> Any:
        """Logits after reading `ids` (from position `reuse` on; None: continue where the cache ends)."""
        lean = self.load().lean
        if reuse is not None:
            if self._cache is None or reuse == 0:
                self._cache = lean.new_cache()
            self._cache.crop(reuse)
            ids = ids[reuse:]
        return lean.forward(ids, self._cache)

    def _hf_forward(self, ids: list[int], reuse: int | None) -> Any:
        import torch
        from transformers import DynamicCache

        model = self.load().model
        if reuse is not None:
            if reuse > 0:
                self._cache.crop(reuse - self._cache.get_seq_length())  # transformers 5: minus the tokens to drop
            else:
                self._cache = DynamicCache(config=model.config)
            ids = ids[reuse:]
        return model(input_ids=torch.tensor([ids]), cache=self._cache, use_cache=True).logits[0, -1]

    def _cached_length(self) -> int:
        return self._cache.length if self.load().lean is not None else self._cache.get_seq_length()

    def _pick(self, logits: Any, temperature: float | None = None, generator: Any = None) -> int:
        import torch

        temperature = self.temperature if temperature is None else temperature
        if temperature <= 0:
            return int(logits.argmax())
        if generator is None:
            if self._generator is None:
                self._generator = torch.Generator()
                if self.seed is not None:
                    self._generator.manual_seed(self.seed)
            generator = self._generator
        probs = torch.softmax(logits.float() / temperature, dim=-1)
        if self.top_p < 1.0:
            sorted_probs, order = probs.sort(descending=True)
            keep = sorted_probs.cumsum(-1) - sorted_probs < self.top_p
            probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_probs[keep])
        return int(torch.multinomial(probs, 1, generator=generator))


def stop_at(text: str, stops: Sequence[str], result_marker: str | None) -> tuple[str, str] | None:
    """Where decoding stops in `text`, if anywhere: at the first stop sequence ("stop") or at the format's result
    marker ("invented_result": the model began writing a tool result itself); the text before it and why."""
    hits = [(i, "stop") for i in (text.find(s) for s in stops if s) if i != -1]
    if result_marker and (i := text.find(result_marker)) != -1:
        hits.append((i, "invented_result"))
    if not hits:
        return None
    i, reason = min(hits, key=lambda hit: (hit[0], hit[1] == "stop"))
    return text[:i], reason


def _template_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages in the shape Hugging Face chat templates with tool support expect."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {
                        "type": "function",
                        "id": c.id,
                        "function": {"name": c.name, "arguments": c.args_or_raw()},
                    }
                    for c in m.tool_calls
                ]
            out.append(entry)
        elif isinstance(m, ToolResultMessage):
            out.append({"role": "tool", "tool_call_id": m.call_id, "name": m.name, "content": m.content})
        else:
            out.append({"role": m.role, "content": m.content})
    return out
