"""The `local` backend: a Hugging Face causal LM on CPU through transformers, with tool calls as text.

Between the rounds of a run the prompt only grows at the end, so key-value caches are kept and a prompt reuses
the one sharing its longest prefix of token ids: only the new tokens are read (`Usage.cached_input_tokens`
counts the rest). Decoding is a loop over single-token forward passes, greedy or sampled with temperature and
top-p; requests decoding at the same time share each pass (continuous batching, `local_batch`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from toollab.formats import get_format, tools_to_openai
from toollab.formats.base import Format, name_in
from toollab.harness.chain import expression_tool
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
from toollab.models.local_batch import CachePool, DecodeRow
from toollab.models.local_cases import by_cases, first_items
from toollab.models.local_dates import written_as_asked
from toollab.models.local_gate import decide
from toollab.models.local_mentions import (
    ExpressionHint,
    free_parameters,
    list_parameters,
    mended,
    mentioned_required,
    others_choices,
    region_parameters,
    turned_down,
)
from toollab.models.local_parts import best_tool, by_tools, joined, request_parts, with_request
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
    decode_started: float = 0.0  # time.perf_counter() when the first token was picked: rows of a turn overlap


def decode_wall_seconds(generations: Sequence[Generation]) -> float:
    """The seconds a turn's rows spent decoding, as a clock on the wall sees them: rows decoded in one batch (the
    parts of a split request, the candidates of a vote) overlap, and their own decode seconds would count the
    shared steps once per row."""
    if not generations:
        return 0.0
    return max(g.decode_started + g.decode_seconds for g in generations) - min(g.decode_started for g in generations)


@dataclass(frozen=True)
class TurnContext:
    """What steering a turn's decoding needs: the user's `request` and the `results` since (where values should
    come from), the `finish` action's name, and the last turn's text when every call in it failed (`failed_turn`:
    written again word for word it would fail again, so the loop guard makes it differ)."""

    request: str = ""
    results: str = ""
    finish: str | None = None
    failed_turn: str | None = None
    expression: ExpressionHint | None = None  # what the chain's expression should hold (`ExpressionHint`)
    regions: frozenset[str] = frozenset()  # parameters whose values name a place with its region (`region_parameters`)
    lists: frozenset[str] = frozenset()  # parameters whose one value may hold a list (`list_parameters`)
    arithmetic: str | None = None  # the offered expression tool: its expression holds no letters ("twelve * 3")
    others: frozenset[tuple[str, str]] = frozenset()  # (parameter, another's choice it never takes): `others_choices`
    free: frozenset[str] = frozenset()  # parameters whose values are free text (`free_parameters`)


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


# Tokens a turn may write unless told otherwise, for every command (`load_model` passes None through): four
# hermes calls with their tags take about 190 tokens, so a turn that makes four calls (a request's four parts)
# is not cut inside its last one.
MAX_NEW_TOKENS = 256


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
        max_new_tokens: int = MAX_NEW_TOKENS,
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
        named_optionals: bool = False,
        coverage: bool = False,
        listed: bool = False,
        decompose: bool = False,
        operands: bool = False,
        dates: bool = False,
        named_items: bool = False,
        founded: bool = False,
        fractions: bool = False,
        cues: bool = False,
        tool_parts: float | None = None,
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
        self.named_optionals = named_optionals  # the grammar asks for the optional parameters the request names
        self.dates = dates  # a date parameter takes the request's dates in the format its description asks
        self.named_items = named_items  # a list of enum choices holds only those the request names, if it names some
        self.founded = founded  # a gated turn whose every call needs a value the request never gave answers instead
        self.fractions = fractions  # a parameter that takes a fraction takes the request's percentages as fractions
        self.cues = cues  # a number parameter takes the request's numbers written beside a word of its name
        self.coverage = coverage  # a first calling turn may not end while a value of the request is in no call
        self.listed = listed  # ... or while an item of a list one of its calls took from is in no call
        self.decompose = decompose  # a first calling turn decodes each part of a request that asks several things
        self.tool_parts = tool_parts  # ... and splits a part further where its clauses ask for different tools
        self.operands = operands  # the chain's expression holds every number of the results, the request's operators
        self.name = f"local:{path}" if path else "local"
        self._loaded: LoadedModel | None = None
        self._pool: CachePool | None = None
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

    @property
    def pool(self) -> CachePool:
        """This model's kept key-value caches (its prompts' prefixes), used on the torch thread only."""
        if self._pool is None:
            self._pool = CachePool(self.load().batcher.rows)
        return self._pool

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
        asked = params
        try:
            params, gated = await decide(self, messages, params, text)
            hint = ExpressionHint.of(messages, params) if self.operands else None
            context = TurnContext(
                last_request(messages),
                results_since_request(messages),
                params.finish,
                failed_turn(messages),
                hint,
                region_parameters(params.tools),
                list_parameters(params.tools),
                expression_tool(params.tools),
                others_choices(params.tools),
                free_parameters(params.tools),
            )
            # a part's best tool is found by MiniLM: on the torch thread, as the gate's relevance is (`decide`)
            turns = await local_weights.on_torch_thread_async(self._turns, messages, params, tools, text, context)
            groups = [await local_weights.on_torch_thread_async(self._rows, t, p, c) for t, p, c in turns]
            rows = [row for group in groups for row in group]
            generations = await self.load().batcher.decode(rows)
            candidates = [(g, row.matcher) for g, row in zip(generations, rows, strict=True)]
        except ValueError as exc:  # a constraint that cannot serve this format or tool choice
            raise ModelError(f"constrained decoding: {exc}", source="harness") from exc
        except Exception as exc:
            raise ModelError(f"local generation failed: {type(exc).__name__}: {exc}", source="harness") from exc
        # a turn told to answer is read as prose: a call written in it (outside the grammar's envelope) is not run
        readable = tools if params.tool_choice != "none" else ()
        messages_out = [self._message(generation, readable) for generation, _ in candidates]
        picks: list[tuple[int, int]] = []  # per decoded prompt: the candidate kept, and how many agree with it
        start = 0
        for group in groups:
            chosen, agreeing = majority(messages_out[start : start + len(group)])
            picks.append((start + chosen, agreeing))
            start += len(group)
        kept = [candidates[i][0] for i, _ in picks]
        generation, matcher = candidates[picks[0][0]]
        # each turn's calls mended against its request (`mended`: a list kept whole in its array, pairs and ranges in
        # the order written, a number two parameters took once written)
        picked = [messages_out[i] for i, _ in picks]
        picked = [
            m.model_copy(update={"tool_calls": mended(m.tool_calls, tools, c.request)}) if m.tool_calls else m
            for m, (_, _, c) in zip(picked, turns, strict=True)
        ]
        message = joined(picked) if len(picked) > 1 else picked[0]
        usage = Usage(
            input_tokens=sum(g.prompt_tokens for g in kept),
            output_tokens=sum(g.new_tokens for g, _ in candidates),
            cached_input_tokens=sum(g.cached_tokens for g in kept),
        )
        metadata: dict[str, Any] = {
            "stop_reason": generation.stop_reason,
            "first_token_seconds": generation.first_token_seconds,
            "decode_seconds": decode_wall_seconds([g for g, _ in candidates]),
            "rows": len(candidates),  # each row's first token is timed apart (first_token_seconds: the kept one's)
        }
        if matcher is not None:
            metadata["grammar"] = matcher.stats.to_dict()
        if gated is not None:
            metadata["gate"] = gated
            if self.founded and gated["call"] and not gated.get("arithmetic"):
                unsaid = turned_down(message.tool_calls, params.tools, last_request(messages))
                if unsaid:  # every call fills what the request never said: a near miss, answered instead
                    answer = await self.request(messages, dataclasses.replace(asked, gate=None, tool_choice="none"))
                    answer.metadata["gate"] = gated | {"call": False, "unfounded": unsaid, "calls": message.raw}
                    return answer
        if len(turns) > 1:
            metadata["parts"] = [c.request for _, _, c in turns]
        if len(candidates) > len(groups):
            chosen, agreeing = picks[0]
            metadata["votes"] = {"candidates": len(groups[0]), "agreeing": agreeing, "chosen": chosen}
        return ModelResponse(message, usage, raw="\n".join(g.text for g in kept), metadata=metadata)

    def _turns(
        self,
        messages: Sequence[Message],
        params: RequestParams,
        tools: Sequence[ToolSpec],
        prompt: str,
        context: TurnContext,
    ) -> list[tuple[str, RequestParams, TurnContext]]:
        """The prompts this turn decodes, with their requests: its own, or under `decompose`, for a first calling
        turn whose request asks several things (`request_parts`), one per part, each part shown as the whole
        request. With the policy's `select` on, a part that asks one thing is shown the one tool that fits it best
        and makes one call; one that may ask several things gets the tools `select` keeps for it, unless it writes
        a list of values and the parts are split by their tools (`tool_parts`): then its one best tool too."""
        whole = [(prompt, params, context)]
        calling = params.tool_choice not in ("auto", "none") and params.tool_choice != params.finish
        if not (self.decompose and calling and params.parallel and params.tools) or context.results:
            return whole
        parts = request_parts(context.request, tools)
        select = self.policy.select if self.policy is not None else None
        if self.tool_parts is not None and select is not None:
            parts = by_tools(parts, [t for t in tools if t.name != params.finish], self.tool_parts)
        parts = by_cases(parts, tools)
        if len(parts) < 2:
            return whole
        turns = []
        for part in parts:
            shown, offered, several = tools, params.tools, part.several
            if select is not None:
                own = [t for t in tools if t.name != params.finish]
                chosen: Sequence[ToolSpec]
                # an ask done again: the ask's tool; a part that writes a list of values (`by_tools` split off the
                # asks for other tools) too: among the tools `select` kept for "How much climbing is on Summit
                # Path, Fern Gully Loop and Blue Lake Trail?", SmolLM2 called trail_grade. A part several only by
                # its commas keeps them ("Progress of Library Renewal toward $48,500, with the donor count": to
                # MiniLM the donation tool fits it best)
                listing = self.tool_parts is not None and first_items(part.request, own) != part.request
                if part.tool_of is not None or not several or listing:
                    chosen = best_tool(part.tool_of or part.request, own)
                else:
                    chosen = select(part.request, own)
                shown = [*chosen, *(t for t in tools if t.name == params.finish)]
                offered = [t for t in params.tools if t in shown] or params.tools
            asks = dataclasses.replace(params, tools=offered, parallel=several)
            turns.append(
                (
                    self.prompt(with_request(messages, part.request), shown),
                    asks,
                    dataclasses.replace(context, request=part.request),
                )
            )
        return turns

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
        rows, pool = loaded.batcher.rows, self.pool
        with loaded.lock, torch.inference_mode():
            slot, reuse = pool.take(ids)
            try:
                logits = rows.prefill(slot, ids, reuse)
                total = 0.0
                for i, token in enumerate(follow):
                    total += float(torch.log_softmax(logits.float(), dim=-1)[token])
                    if i < len(follow) - 1:
                        logits = rows.step([slot], [token])[0]
                slot.ids = ids + follow[:-1]
            finally:
                pool.give(slot)
        return total

    def forget_cache(self) -> None:
        """Drop the kept key-value caches: the next prompt is read whole (for measuring a cold prompt)."""
        local_weights.on_torch_thread(self.pool.clear)

    def generate(self, prompt: str, max_new_tokens: int | None = None) -> Generation:
        """Decode a continuation of `prompt`, reusing the cached prefix of an earlier decode."""
        return local_weights.on_torch_thread(self._generate, prompt, max_new_tokens)

    def _generate(self, prompt: str, max_new_tokens: int | None) -> Generation:
        (row,) = self._decode_rows(prompt, max_new_tokens, [(None, None)], TurnContext())
        return self.load().batcher.decode_now([row])[0]

    def _rows(self, prompt: str, params: RequestParams, context: TurnContext) -> list[DecodeRow]:
        """The turn's sequences to decode (on the torch thread, where grammars compile): the turn itself, and for
        a calling turn under `votes`, more candidates sampled at `VOTE_TEMPERATURE` from a generator seeded by
        the prompt (the same turn draws the same candidates). A turn offering tools under a constraint decodes
        under its grammar."""
        said = (self.named_optionals, self.dates, self.named_items, self.fractions, self.cues)
        # the request's written arithmetic on the turn that first calls, not on the chain's step after results
        # (SmolLM2 called the calculator with "5.0 + 3.0" for "(5.0 + 3.0) * 2.0")
        written = self.operands and not context.results
        if (any(said) or written) and context.request:
            tools = [mentioned_required(t, context.request, *said, expressions=written) for t in params.tools]
            params = dataclasses.replace(params, tools=tools)
            if self.dates:
                context = dataclasses.replace(context, request=written_as_asked(context.request, params.tools))
        plans: list[tuple[TokenMatcher | None, tuple[float, Any] | None]] = [(self._matcher(params, None), None)]
        if self.votes > 1 and params.tools and params.tool_choice != "none":
            import torch

            seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:8], "big")
            sampling = (VOTE_TEMPERATURE, torch.Generator().manual_seed(seed))
            plans += [(self._matcher(params, sampling), sampling) for _ in range(self.votes - 1)]
        return self._decode_rows(prompt, None, plans, context)

    def _matcher(self, params: RequestParams, sampling: tuple[float, Any] | None) -> TokenMatcher | None:
        if self.constraint is None or not params.tools:
            return None
        loaded = self.load()
        return self.constraint.start(
            params,
            self.format,
            loaded.tokenizer,
            loaded.model.config.vocab_size,
            sorted(loaded.eos_ids),
            greedy=(sampling[0] if sampling else self.temperature) <= 0,
        )

    def _decode_rows(
        self,
        prompt: str,
        max_new_tokens: int | None,
        plans: Sequence[tuple[TokenMatcher | None, tuple[float, Any] | None]],
        context: TurnContext,
    ) -> list[DecodeRow]:
        ids = self.load().tokenizer(prompt, add_special_tokens=False)["input_ids"]
        limit = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        return [DecodeRow(self, ids, limit, matcher, context, sampling) for matcher, sampling in plans]

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
