"""Steering a small model while it decodes, inside what the grammar allows, so the turn still parses.

A 135M model falls into loops (the same few tokens over and over inside a string until the token budget ends the
call unfinished), pads a turn with calls (the same call again, or one the request never asked for), and makes up
argument values the request spells out. The loop guard, the extra-call cut and the grounding bias act on those.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from toollab.formats.base import Format
from toollab.harness.messages import ToolCall
from toollab.models.local_cues import cue_of, named_numbers
from toollab.models.local_dates import DIGIT_DATE
from toollab.models.local_names import name_words, same_stem
from toollab.models.local_numbers import holds_number, said_numbers, writes_number
from toollab.models.local_places import placed_pairs
from toollab.tools.arithmetic import GROUPED as _GROUPED
from toollab.tools.arithmetic import without_separators

LOOP_SPAN = 8  # a loop is a block of tokens repeated back to back over at least this many tokens
LOOP_REPEATS = 3  # ... at least this many times
MAX_BLOCK = 16
REPEAT_SPAN = 6  # a stretch of this many tokens written twice in a turn is not written a third time
PENALTY = 1e4  # subtracted from the logit of the token that would go round the loop again (finite: if the grammar
# allows nothing else, the loop goes on rather than the decode failing)


def loop_token(generated: Sequence[int]) -> int | None:
    """The token that would continue an exact loop at the end of `generated`, if it ends in one."""
    for block in range(1, MAX_BLOCK + 1):
        repeats = max(LOOP_REPEATS, -(-LOOP_SPAN // block))
        span = block * repeats
        if len(generated) < span:
            continue
        tail = generated[-span:]
        if all(tail[i] == tail[i % block] for i in range(span)):
            return tail[0]  # the block starts again with its first token
    return None


MAX_DIGITS = 20  # more digits in a row than a double holds (17): a number that has stopped meaning anything
_DIGIT_RUN = re.compile(r"[0-9][0-9.]*$")


def runaway_number(text: str) -> bool:
    """Whether `text` ends in a run of MAX_DIGITS digits or more (decimal points allowed between them): SmolLM2
    goes on writing digits ("50000000100000001100...") until the token budget cuts the call off."""
    run = _DIGIT_RUN.search(text)
    return run is not None and sum(c.isdigit() for c in run.group()) >= MAX_DIGITS


@functools.cache
def token_texts(tokenizer: Any) -> tuple[str, ...]:
    """Each token's text, by id: the whole vocabulary decoded once per tokenizer, for every scan below."""
    return tuple(tokenizer.decode([i]) for i in range(len(tokenizer)))


@functools.cache
def digit_texts(tokenizer: Any) -> dict[int, str]:
    """The tokens made of digits alone (with or without a leading space), with their text, found once per
    tokenizer."""
    return {i: t for i, t in enumerate(token_texts(tokenizer)) if t.strip().isdigit()}


def digit_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens made of digits alone (with or without a leading space)."""
    return tuple(digit_texts(tokenizer))


@functools.cache
def quote_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens holding a double quote (the ones that can close a JSON string), found once per tokenizer."""
    return tuple(i for i, t in enumerate(token_texts(tokenizer)) if '"' in t)


@functools.cache
def non_arithmetic_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens holding a character no arithmetic on numbers needs (a letter, say), a double quote excepted,
    found once per tokenizer."""
    return tuple(i for i, t in enumerate(token_texts(tokenizer)) if '"' not in t and set(t) - ARITHMETIC_CHARACTERS)


ARITHMETIC_CHARACTERS = frozenset("0123456789+-*/(). ")
OPERATOR_BIAS = 3.0  # added to the logits of the operators a request names, as strong as the grounding of values


@functools.cache
def operator_tokens(tokenizer: Any) -> dict[str, tuple[int, ...]]:
    """The tokens that are one arithmetic operator (with or without spaces), by operator, found once."""
    texts = [t.strip() for t in token_texts(tokenizer)]
    return {op: tuple(i for i, t in enumerate(texts) if t == op) for op in "+-*/"}


def same_again(generated: Sequence[int], before: Sequence[int]) -> int | None:
    """The token that would keep this turn identical to `before` (a turn whose calls all failed), while it is."""
    n = len(generated)
    return before[n] if n < len(before) and list(before[:n]) == list(generated) else None


def repeat_token(generated: Sequence[int], structural: Callable[[Sequence[int]], bool]) -> int | None:
    """The token that would write again a stretch of REPEAT_SPAN tokens this turn has already written: a value
    copied twice, a sentence that starts over. Stretches that hold the wire format's own punctuation
    (`structural`) are left alone: the second call of a turn repeats the first one's envelope."""
    if len(generated) <= REPEAT_SPAN:
        return None
    tail = list(generated[-REPEAT_SPAN:])
    for start in range(len(generated) - REPEAT_SPAN - 1, -1, -1):
        if list(generated[start : start + REPEAT_SPAN]) == tail:
            return None if structural(tail) else generated[start + REPEAT_SPAN]
    return None


def _key(call: ToolCall) -> tuple[str, str]:
    return call.name, repr(call.args_or_raw())


def _scalars(value: Any) -> list[Any]:
    """The scalar values in an argument value, inside its objects and lists at any depth."""
    if isinstance(value, dict):
        return [s for item in value.values() for s in _scalars(item)]
    if isinstance(value, list):
        return [s for item in value for s in _scalars(item)]
    return [value]


def call_values(value: Any, exact: bool = False) -> list[str]:
    """The scalar values in an argument value, as text (booleans and None left out: nothing to ground); a whole
    float also as an int (the request may write 5 for a rate of 5.0), unless `exact`: then as written alone (which
    of the request's numbers a value is: in "5 and 20 years at 5.0%", a rate of 5.0 is not the list's 5)."""
    texts: list[str] = []
    for scalar in _scalars(value):
        if isinstance(scalar, bool) or scalar is None:
            continue
        if isinstance(scalar, float) and scalar.is_integer() and not exact:
            texts.append(str(int(scalar)))
        texts.append(str(scalar))
    return texts


def number_texts(value: Any) -> list[str]:
    """The numbers in an argument value as the call wrote them: 5.0 as "5.0" and 5 as "5" (not the strings that
    hold numbers: a year "2010" is a string's value)."""
    return [str(s) for s in _scalars(value) if isinstance(s, (int, float)) and not isinstance(s, bool)]


def adds_to(call: ToolCall, earlier: Sequence[ToolCall], request: str) -> bool:
    """Whether the call brings something the request asked for that the earlier calls of the turn did not: one of
    its argument values appears in the request (text ignoring case; a number whole) and, when an earlier call used
    the same tool, in none of that tool's earlier calls (a second tool may ask about the same thing), a number as
    `holds_number` reads them ("$675,000 for 5 and 20 years at 5.0%": a second call's years 5 is new beside the
    first's rate 5.0)."""
    said = request.lower()
    same_tool = [c for c in earlier if c.name == call.name]
    used = {v.strip().lower() for c in same_tool for v in call_values(c.args_or_raw())}
    held = [t for c in same_tool for t in number_texts(c.args_or_raw())]
    arguments = call.args_or_raw()
    if any(writes_number(t, request) and not holds_number(held, t, request) for t in number_texts(arguments)):
        return True
    return any(
        (v := raw.strip().lower()) and v in said and v not in used
        for raw in _scalars(arguments)
        if isinstance(raw, str)
    )


def closed_call(text: str, format: Format) -> str | None:
    """`text` with its last call's envelope finished, when that call's JSON has just closed (the text ends in a
    beginning of the envelope's end: `}` of hermes' `}\n</tool_call>`), or already is; None otherwise. A call is
    judged (`extra_call_cut`) there: four calls can fill the budget, and the last cut off inside its envelope's
    end is a truncated call though it was complete (BFCL's parallel_multiple_66 repeated an earlier call so)."""
    envelope = format.envelope
    if envelope is None:
        return None
    end = envelope.end
    for k in range(len(end), 0, -1):
        if text.endswith(end[:k]):
            return text + end[k:]
    return None


def extra_call_cut(
    text: str,
    format: Format,
    dedupe: bool,
    request: str | None,
    fills_pair: Callable[[Sequence[ToolCall], ToolCall, str], bool] | None = None,
) -> str | None:
    """When the call that `text` has just completed should not be in the turn, the text before it (the turn ends
    there); None otherwise. A call is cut when it repeats an earlier call of the turn (`dedupe`), or when it
    comes after the first and brings nothing new from the user's `request` (`adds_to`: a small model pads a
    turn with calls the request never asked for), unless it holds a pair of two lists' items the earlier calls
    miss (`fills_pair`, `local_mentions.fills_pair`: each of its values was called, not together). Only for
    formats that wrap each call in an envelope."""
    envelope = format.envelope
    if envelope is None or envelope.arguments != "json" or not text.endswith(envelope.end):
        return None
    calls = format.parse(text).tool_calls
    if len(calls) < 2 or calls[-1].parse_error is not None:
        return None
    last = calls[-1]
    repeated = dedupe and _key(last) in {_key(c) for c in calls[:-1]}
    ungrounded = request is not None and not adds_to(last, calls[:-1], request)
    if ungrounded and request is not None and fills_pair is not None:
        ungrounded = not fills_pair(calls[:-1], last, request)
    if not (repeated or ungrounded):
        return None
    start = text.rfind(envelope.opening(last.name))
    return text[:start].rstrip("\n") if start > 0 else None


_WORDS = re.compile(r"[\w.%:-]+")
_SEPARATORS = {"", ",", ".", ";", ":", "?", "!", ")", "]", "}", "'", '"', "),", ").", ");", "?'", "'?"}
_VALUE = re.compile(r""":\s?("?)$""")  # inside a JSON call, where a value starts (or right after its quote)
_ITEM_OPENED = re.compile(r"""[\[{,]\s?"$""")  # right after the quote of an array's item or an object's key
_OPEN_ARRAY = re.compile(r"""\[([^\[\]]*)$""")  # the array being written (none nested in it), what it holds so far
_QUOTE = re.compile(r'(?<!\\)"')  # a quote that opens or closes a JSON string
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ITEM_WORD = re.compile(r"[^\W_]{3,}|\d+")
_ITEM_NEXT = re.compile(r"""[\[{,]\s?$""")  # where an array's next item or an object's next key may open
# the parameter whose value is being written (SmolLM2 writes `"include_donor_count" : true` at times)
_KEY = re.compile(r""""([^"]+)"\s*:\s?(?:"[^"]*|[-\d.]*)$""")
_INSIDE = re.compile(r""":\s?"([^"\\]*)$""")  # inside a string value (and what it holds so far)
_ARRAY_KEY = re.compile(r""""([^"]+)"\s*:\s?\[[^\[\]{}]*$""")  # the parameter whose array is being written
_ITEM_INSIDE = re.compile(r"""(?:^|,)\s?"([^"\\]*)$""")  # ... or an array's string item, in what the array holds
_SEPARATED = re.compile(r"""[\s,;:]$""")  # ... that ends in a space or a separator
NAME_BIAS = 3  # times `strength` for the name of a tool a list's items are left of
COPY_CONTEXT = 4  # tokens of context that decide what a copy goes on with
PIECE = 16  # the longest token text looked for where a copy goes on letter by letter
LETTERS_CAP = 4  # ... and the most `strength` a token that goes on with it gets
_WORD_REST = re.compile(r"[^\W_]*")  # the letters and digits left of a word
_PLURAL_ENDS = frozenset({"s", "es"})
# where a list's last item ends: punctuation, a clause; or, after a name's capitalised word, a lowercase word other
# than those a name holds ("North of Nowhere")
_AFTER_LAST_ITEM = re.compile(r"\s*(?:[.,;:?!)]|$)|\s+(?:in|at|on|to|for|from|with|by|into|during|before|after)\b")
_AFTER_NAME = re.compile(r"\s+(?!(?:of|on|de|la|the|and|for)\b)[a-z]")
# "Model 3", "Harbor City", "Spoke &": a name's words so far; and the name's next word in the source
_NAME_SO_FAR = re.compile(r"[A-Z][^\W_]*(?: (?:&|[A-Z0-9][^\W_]*))*")
_NAME_NEXT = re.compile(r" (&(?= [A-Z])|[A-Z0-9][^\W_]*)")
_IN_NAME = re.compile(r"[A-Z][^\W_]*\s+(?:(?:of|on|de|la|the|and|for)\s+)?[A-Z]")  # "Meals on Wheels", "Two Wheels"


def _token_ids(tokenizer: Any, words: Iterable[str]) -> set[int]:
    """The ids a word takes alone or after a space (inside a JSON string a word starts right after the quote)."""
    ids: set[int] = set()
    for word in words:
        for variant in (word, " " + word):
            ids.update(tokenizer(variant, add_special_tokens=False)["input_ids"])
    return ids


_VALUE_STARTS = r"\w+\-$€£¥#@(\[{/~"  # what a string value may open with: a word, a number, a sign, a bracket...


@functools.cache
def _vocabulary(tokenizer: Any) -> dict[str, int]:
    """Each token's text and its id (the first id of a text that several spell)."""
    texts: dict[str, int] = {}
    for i, text in enumerate(token_texts(tokenizer)):
        texts.setdefault(text, i)
    return texts


@functools.cache
def _bad_edges(
    tokenizer: Any,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Tokens that would open a string value with nothing in it, with a space or with punctuation (a value starts with a
    word, a number, a sign or an opening bracket): where the value starts, every token that holds more than the
    quote but `"(` (`""`, ` ",`, `">`, and `"+`, `"/`: the quote comes alone and what follows is chosen after it, else a
    model that wanted a bare value picks the likeliest of these and writes `"+2027-10-27}}` on past the value's end)
    and right after its opening quote (`"`, `,`, `>`...); the tokens that hold a quote and punctuation after it
    (`"}}}`, `", `), refused where an array's item or an object's key may open (SmolLM2 ran on inside a key opened
    so: `{"2 of hearts": 3, "}}}  # 5 seconds...`); and the tokens that close a string (`"`...), refused after
    a value that ends in a space or a separator (`"2027-04-11, "`); and the tokens holding `<` or `>` (markup:
    SmolLM2 opens dates with `/>`). Found once per tokenizer, over its whole vocabulary."""
    texts = token_texts(tokenizer)
    before = re.compile(r"""^\s?"(?!\($).""")  # `"(` stays: an expression opens with its bracket
    after = re.compile(rf"""^[^{_VALUE_STARTS}]""")
    quoted_punctuation = re.compile(rf"""^\s?"[^{_VALUE_STARTS}]""")
    return (
        tuple(i for i, t in enumerate(texts) if before.match(t)),
        tuple(i for i, t in enumerate(texts) if after.match(t)),
        tuple(i for i, t in enumerate(texts) if quoted_punctuation.match(t)),
        tuple(i for i, t in enumerate(texts) if t.startswith('"')),
        tuple(i for i, t in enumerate(texts) if "<" in t or ">" in t),
    )


@functools.cache
def word_openers(tokenizer: Any) -> dict[str, tuple[int, ...]]:
    """The tokens by the first two letters of the word they open (lowercased, a space before them or not; one
    letter for a word of one): "on", " On" and "ons" under "on"."""
    found: dict[str, list[int]] = {}
    for i, t in enumerate(token_texts(tokenizer)):
        if (word := re.match(r"\s?([^\W\d_]+)", t)) is not None:
            found.setdefault(word.group(1)[:2].lower(), []).append(i)
    return {k: tuple(v) for k, v in found.items()}


@functools.cache
def capital_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens that open with a capital letter, no space before it, found once per tokenizer."""
    return tuple(i for i, t in enumerate(token_texts(tokenizer)) if t[:1].isupper())


def runaway_item(text: str, source: str, whole: Callable[[list[str]], bool] | None = None) -> bool:
    """Whether `text` has just closed, or is writing, a string item of an array that the array holds already, or,
    past its second item, one that shares no word with `source` (the request and the results, lowercased): SmolLM2
    ran on with `"Stranger Things", "Stranger Things", ..., "defaultValue23"` and `"dinner", "dinner.com",
    "household", "household.serve", ...` to the end of the budget. A number may come twice (data: grades), a string
    item not. Given `whole`, also where the items hold every item of a list of the request
    (`local_mentions.array_items_left`): SmolLM2 wrote ["Lisbon", "Porto", "Faro", "Lisbon"] for "Lisbon, Porto and
    Faro"."""
    array = _OPEN_ARRAY.search(text)
    held = array.group(1).rstrip() if array is not None else ""
    if len(_QUOTE.findall(held)) % 2:  # inside an item: judged as if it closed now (`",` is one token)
        held += '"'
    if not held.endswith('"'):
        return False
    items = _STRING.findall(held)
    if len(items) < 2:
        return False
    words = _ITEM_WORD.findall(items[-1].lower())
    again = items[-1] in items[:-1] or (len(items) > 2 and not any(w in source for w in words))
    return again or (whole is not None and whole(items))


@functools.cache
def number_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens that would go on with a number: opening with a digit, a point or an exponent's e."""
    return tuple(i for i, t in enumerate(token_texts(tokenizer)) if re.match(r"[\d.eE]", t))


@functools.cache
def digit_going_on_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens of `number_tokens` that open with a digit: what would go on with a number's digits (not its point)."""
    texts = token_texts(tokenizer)
    return tuple(i for i in number_tokens(tokenizer) if texts[i][0].isdigit())


@functools.cache
def comma_tokens(tokenizer: Any) -> tuple[int, ...]:
    """The tokens that open with a comma, or with a quote and a comma (spaces allowed), found once per tokenizer."""
    return tuple(i for i, t in enumerate(token_texts(tokenizer)) if re.match(r'\s*"?\s*,', t))


_NUMBER_VALUE = re.compile(r"""(?:[:\[]|,)\s?(-?\d+)$""")  # a number value (or array item) being written, so far
_DECIMAL_VALUE = re.compile(r"""(?:[:\[]|,)\s?(-?\d+)\.(\d*)$""")  # ... past its decimal point
_WRITTEN = re.compile(r""":(\s?(?:"[^"]*|[-\d.]*))$""")  # a value's JSON text so far, after its key's colon
_NUMBERS_IN_BRACKETS = re.compile(r"\[[-\d\s,.\[\]]*\]")  # a list in brackets of numbers only, lists of them too
# an array value being written, of numbers and brackets only, from its key's colon
_ARRAY_VALUE = re.compile(r":\s?(\[[-\d\s,.\[\]]*)$")


def number_lists(source: str) -> list[str]:
    """The JSON texts of the lists of numbers, or lists of such lists, that `source` writes in brackets ("the
    readings [4, 9, 7, 9, 3]", "the matrix [[2, 1], [5, 3]]"), each with and without spaces after its commas: an
    array that copies one is pinned to it once its first number is written (`Grounding._copy_list`)."""
    found: list[str] = []
    for opening in (m.start() for m in re.finditer(r"\[", source)):
        depth = 0
        for end in range(opening, len(source)):
            depth += {"[": 1, "]": -1}.get(source[end], 0)
            if depth == 0:
                break
        written = _NUMBERS_IN_BRACKETS.fullmatch(source, opening, end + 1)
        try:
            value = json.loads(written.group()) if written is not None else None
        except ValueError:
            continue
        flat = isinstance(value, list) and len(value) > 1 and all(isinstance(x, (int, float)) for x in value)
        nested = isinstance(value, list) and all(isinstance(x, list) and x for x in value)
        if value and (flat or (nested and all(isinstance(y, (int, float)) for x in value for y in x))):
            found += [json.dumps(value), json.dumps(value, separators=(",", ":"))]
    return list(dict.fromkeys(found))


def value_forms(value: Any) -> list[str]:
    """The JSON texts a pinned value may be written as: a number or a flag as JSON writes it; a string quoted, and,
    when it is a number or a lowercase word as the request spells it, bare or capitalised too (the grammar keeps
    the one its parameter's type allows)."""
    if isinstance(value, bool) or not isinstance(value, str):
        return [json.dumps(value)] if isinstance(value, (bool, int, float)) else []
    forms = [json.dumps(value, ensure_ascii=False)]
    if re.fullmatch(r"-?\d[\d,]*(?:\.\d+)?", value):
        forms.append(value.replace(",", ""))
        if whole := re.fullmatch(r"(-?\d+)\.0+", forms[-1]):  # as JSON writes a whole float from an enum: 88
            forms.append(whole.group(1))
    if value[:1].islower():
        forms.append(json.dumps(value[:1].upper() + value[1:], ensure_ascii=False))
    return forms


def continuing(written: str, forms: Sequence[str], vocabulary: dict[str, int]) -> tuple[set[int], bool, bool] | None:
    """The tokens that take a value's JSON text `written` so far (after its key's colon) on towards one of `forms`,
    whether it is one of them already (a number that may end), and whether a string's closing quote is all that
    is left (then a token that closes it and goes on with the call may come too); None once it has left them all."""
    allowed: set[int] = set()
    whole, closes, live = False, False, False
    for form in forms:
        for variant in (form, " " + form):  # a value may open after a space; no form opens with one
            if not variant.startswith(written):
                continue
            live = True
            rest = variant[len(written) :]
            whole |= not rest
            closes |= rest == '"'
            allowed.update(
                t for k in range(1, min(PIECE, len(rest)) + 1) if (t := vocabulary.get(rest[:k])) is not None
            )
    return (allowed, whole, closes) if live else None


_ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# a comma and a capitalised name that is not followed by another listed name ("Denver, Colorado with ...")
_REGION = r",\s*[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*(?!\s*,\s*[A-Z]|\s+(?:and|or)\b|\s+[A-Z]|[\w.])"
# a date in digits (as the `dates` switch writes the request's: "on the 2027-05-02"), up to two short words after
# a value: another parameter's, where the value ends
_DATE = rf"{DIGIT_DATE}(?![\w-])"
# words that join a kind to what follows it rather than name its value ("10 units and ...", "a trail of ...")
_JOINING = r"(?:and|or|nor|but|of|in|on|at|for|with|to|by|from|as|per|than|then|is|are|was|were|the|a|an|that|which)"
_INTO_DATE = rf"(?:,?\s+[a-z]{{1,5}}){{0,2}},?\s+{_DATE}"


class Pins(Protocol):
    """What the next call of a tool must write, given the turn's earlier calls of it and the parameters that took a
    list's items from the request (`local_mentions.pinned_next`, with its request)."""

    def __call__(self, calls: Sequence[ToolCall], *, listed: set[str]) -> dict[str, list[str]]: ...


class Grounding:
    """The grounding bias of one calling turn, so a small model copies the values it was given instead of making
    them up. The source is the `request` and the `results` since, its numbers without thousands separators. Its
    tokens get `strength` / 2 added to their logits; while the turn is copying a span of it (its last tokens match
    the source), the token that comes next in the source gets `strength` (the longest match decides); where a value
    stops inside a word of the source that its tokens split differently (`S` for the request's ` Summit`), the
    tokens that finish the word get up to 4 x `strength`, more for longer ones. A string value's quote is written
    alone (or with `(`), and the value may not open empty, with a space or with punctuation, nor close after a space
    or a separator, nor hold `<` or `>` unless the source does. The finish action's answer is grounded on the
    results alone (an answer that restates the question answers nothing). Given `listed`
    (`local_mentions.listed_next`), a value of a parameter that earlier calls of the turn took from a list of the
    request moves on to the list's next item: it opens with `strength` more on the first tokens of the items no call
    holds yet, and the words this tool's earlier calls used there (as often as the source holds them) get 2 x
    `strength` taken away (the other parameters may repeat their values: "the advanced, beginner and intermediate
    spanish course" is three calls with "spanish"); and given `item_end`, a string value that has written a whole
    item of a list ends there."""

    def __init__(
        self,
        tokenizer: Any,
        request: str,
        results: str,
        strength: float,
        format: Format,
        finish: str | None,
        listed: Callable[[Sequence[ToolCall]], tuple[set[str], list[str]]] | None = None,
        regions: frozenset[str] = frozenset(),
        item_end: Callable[[str], bool] | None = None,
        lists: frozenset[str] = frozenset(),
        pins: Pins | None = None,
        others: frozenset[tuple[str, str]] = frozenset(),
        array_left: Callable[[list[str]], list[str] | None] | None = None,
        free: frozenset[str] = frozenset(),
    ):
        import torch

        assert format.envelope is not None
        self._torch = torch
        self.format = format
        self.strength = strength
        self.finish = finish
        # the numbers the request says in words or with a magnitude ("top five", "$2 million") are copied in digits
        asked = "\n".join((request, *said_numbers(request)))
        written = "\n".join((asked, results))
        everything = without_separators(written)
        found = _WORDS.findall(everything)
        self.words = Counter(w.lower() for w in found)
        self.capitalised = {w.lower() for w in found if not w.islower()}
        self.lowercase = {w for w in found if w.islower()}  # the words the source writes in lowercase
        self._kinds: dict[tuple[str, bool], Any] = {}  # per parameter (and opening): the tokens of its kind
        self.by_word: dict[str, set[int]] = {}
        for word in found:
            self.by_word.setdefault(word.lower(), set()).update(_token_ids(tokenizer, {word, word.lower()}))
        results = without_separators(results)
        # the numbers written with separators, as digits, with the length of their leading group; and every number
        self.grouped = sorted({(g.replace(",", ""), len(g.split(",")[0])) for g in _GROUPED.findall(written)})
        self.numbers = set(_ANY_NUMBER.findall(everything))
        self.request = request
        self.asked_numbers = set(_ANY_NUMBER.findall(without_separators(asked)))  # the request's alone
        self.whole_parts = {n.split(".")[0] for n in self.numbers}  # what a number's digits before its point are
        # each number as written, and as a share of 100 (0.045 for 4.5%): how a number goes on past its point
        self.decimal_forms = self.numbers | {str(float(n) / 100) for n in self.numbers}
        self.sources = {"all": self._source(tokenizer, everything), "results": self._source(tokenizer, results)}
        self.texts = {"all": everything, "results": results}
        self.text = everything
        self.lowered = everything.lower()  # for `runaway_item`, once rather than every token
        self.vocabulary = _vocabulary(tokenizer)
        before, after, quoted_punctuation, closing, markup = _bad_edges(tokenizer)
        self.bad_openings = tuple(torch.tensor(t, dtype=torch.long) for t in (before, after, quoted_punctuation))
        self.commas = torch.tensor(comma_tokens(tokenizer), dtype=torch.long)
        self.capital_starts = torch.tensor(capital_tokens(tokenizer), dtype=torch.long)
        self._breaks: dict[str, list[Any]] = {}  # per value written so far: `_word_breaks`
        self.vocabulary_size = len(tokenizer)
        self.comma_ids = set(comma_tokens(tokenizer))
        self.quoting = torch.tensor(quote_tokens(tokenizer), dtype=torch.long)
        self.number_goes_on = torch.tensor(number_tokens(tokenizer), dtype=torch.long)
        self.digits_go_on = torch.tensor(digit_going_on_tokens(tokenizer), dtype=torch.long)
        self.closing = torch.tensor(closing, dtype=torch.long)
        self.dated = re.search(_DATE, everything) is not None  # `_date_follows` has something to find
        self.number_lists = number_lists(everything)
        # the numbers written outside those lists, as often as written: what an array of loose numbers may hold
        self.loose_numbers = Counter(_ANY_NUMBER.findall(_NUMBERS_IN_BRACKETS.sub(" ", everything)))
        self.copying = False  # whether this step's token goes on copying one of them (`_copy_list`)
        self._mid: dict[tuple[str, str], bool] = {}  # per source and item written so far: `_mid_word`
        self._item_wholes: dict[tuple[str, str], bool] = {}  # per array's items before and item so far
        # markup in a value only where the request or the results hold some
        self.markup = None if re.search("[<>]", everything) else torch.tensor(markup, dtype=torch.long)
        self.active = self.sources["all"]
        self.spent: Any = None
        self.tokenizer = tokenizer
        self.regions = regions
        self.others: dict[str, set[str]] = {}  # per free string parameter, the choices of its tool's others
        for parameter, word in others:
            self.others.setdefault(parameter, set()).add(word)
        self._others_tokens: dict[str, Any] = {}
        self.item_end = item_end
        self.array_left = array_left
        self.free = free
        self.lists = lists
        self.listed = listed
        self.pins = pins
        self.listed_parameters: set[str] = set()
        self.wanted: Any = None  # first tokens of the list items no call holds yet
        self.pinned: dict[str, list[str]] = {}  # per parameter, the JSON texts its value must be one of
        head, _, tail = format.envelope.begin.partition("{name}")
        # a call's opening up to its arguments; the text seldom ends right there (SmolLM2 writes ` {"` as one token)
        self._opening = re.compile(re.escape(head) + r'([^"\n]+)' + re.escape(tail.rstrip()))
        self._openings = 0  # the calls whose opening `update` has seen
        self._naming = re.compile(re.escape(head) + r'([^"\n]*)$')  # a call's name being written
        self._unfinished: tuple[int, list[str]] = (-1, [])  # where a name starts, and the tools a list is left of

    def _source(self, tokenizer: Any, text: str) -> tuple[Any, list[int]]:
        """A source's tokens (both spellings of each word, without the punctuation between values), and its token
        sequence (to follow a copy)."""
        ids = tokenizer(text, add_special_tokens=False)["input_ids"] if text.strip() else []
        starts = {i for i in ids if tokenizer.decode([i]).strip() not in _SEPARATORS}
        tokens = starts | _token_ids(tokenizer, _WORDS.findall(text))
        return self._torch.tensor(sorted(tokens), dtype=self._torch.long), ids

    def _next_in_copy(self, generated: Sequence[int], sequence: list[int]) -> list[int]:
        """The source tokens that continue the longest stretch (up to COPY_CONTEXT tokens) at the end of
        `generated` that also stands in the source."""
        for k in range(min(COPY_CONTEXT, len(generated)), 0, -1):
            tail = list(generated[-k:])
            found = [sequence[p] for p in range(k, len(sequence)) if sequence[p - k : p] == tail]
            if found:
                return found
        return []

    def _word_breaks(self, value: str) -> list[Any]:
        """The tokens a copy of the source may not go on with after `value` (ending in a letter), where the source
        writes it from a word's start and the word goes on, in lowercase, in every place: those that open with a
        capital, and those that open as the next word does, with or without a space: they skip the rest of the
        word ("MealOnWheels", "Meal on Wheels", "Mealons on Wheels" for "Meals on Wheels"). A word may still end
        early or change its ending (the "Portuguese anthem": "Portugal"), but not inside a name of several
        capitalised words ("Meals on Wheels", "Two Wheels Depot"): there only the tokens that finish the word are left
        (SmolLM2 closed "Meal"); nor before a plural's ending the word has everywhere, where too only its ending
        may follow (SmolLM2 wrote "radish" for "radishes", and "cucumber, squash, beans" as one value). At a word's
        end the next may join it ("QuebecCity": barred, SmolLM2 closed the value at "Quebec"); inside a name, only
        its next word may follow (`_name_goes_on`). Found once per value, at its first token (`_breaks_after`)."""
        if value not in self._breaks:
            self._breaks[value] = self._breaks_after(value)
        return self._breaks[value]

    def _breaks_after(self, value: str) -> list[Any]:
        """`_word_breaks` for a value not seen yet."""
        if _NAME_SO_FAR.fullmatch(value.removesuffix(" ")) and (goes_on := self._name_goes_on(value)) is not None:
            return [goes_on]
        if not value[-1:].isalpha():
            return []
        found = list(re.finditer(rf"(?<![^\W_]){re.escape(value)}(.?)", self.text, re.IGNORECASE))
        inside = bool(found) and all(m.group(1).isalnum() and not m.group(1).isupper() for m in found)
        named = inside and all(_IN_NAME.match(self.text, m.start()) for m in found)
        # "radishes", not "radish": a value is written as the request writes it, and a list's item ends whole
        # ("cucumbers, squash and beans": SmolLM2 wrote "cucumber, squash, beans" as one vegetable)
        plural = inside and all(_WORD_REST.match(self.text, m.start(1)).group() in _PLURAL_ENDS for m in found)  # type: ignore[union-attr]
        if (named or plural) and (ends := self._next_letters(value)):
            kept = self._torch.ones(self.vocabulary_size, dtype=self._torch.bool)
            kept[sorted(ends)] = False
            return [kept.nonzero().flatten()]
        if not inside:
            return []
        skipped: set[int] = set()
        for m in found:
            rest = _WORD_REST.match(self.text, m.end()).end()  # type: ignore[union-attr]
            if (after := re.match(r"[^\w]*(\w+)", self.text[rest:])) is not None:
                skipped.update(word_openers(self.tokenizer).get(after.group(1)[:2].lower(), ()))
        skipped -= set(self._next_letters(value))  # "sp" + "anish" of "spanish and" goes on
        barred = [self.capital_starts]
        if plural:
            barred.append(self.closing)
        if skipped:
            barred.append(self._torch.tensor(sorted(skipped), dtype=self._torch.long))
        return barred

    def _name_goes_on(self, value: str) -> Any:
        """At a word's end inside a name of capitalised words or numbers (joined by "&" too), wherever the source
        writes the value so far ("Model" of "Model 3 2022", "Riverside" of "Riverside Rovers", "Spoke" of "Spoke &
        Chain"): every token but the one that opens the name's next word with its space ("Blue LakeTrail" and
        "BritishMuseum" were written where it could be joined). SmolLM2 wrote
        "Model 2022" and "Riverside Riverside Rovers", and closed "Corolla 2019" at "Corolla", "Spoke & Chain" at
        "Spoke". None where the value does not stop inside such a name everywhere."""
        spaced = value.endswith(" ")  # a number's digits are tokens apart: "Model" + " " + "3"
        name = value.removesuffix(" ")
        found = list(re.finditer(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", self.text))
        nexts = [_NAME_NEXT.match(self.text, m.end()) for m in found]
        if not found or any(n is None for n in nexts):
            return None
        kept = self._torch.ones(self.vocabulary_size, dtype=self._torch.bool)
        for word in {n.group(1) for n in nexts if n is not None}:
            # the word with its space; joined to the value it would be a word the source does not write
            variant = word if spaced else " " + word
            kept[self.tokenizer(variant, add_special_tokens=False)["input_ids"][0]] = False
        return kept.nonzero().flatten()

    def _next_letters(self, value: str) -> dict[int, int]:
        """The tokens that finish a word of the source that a string value stopped inside, where the source's
        tokens split it differently, with the letters each adds: the request's ` Summit` is one token, but a value
        opens without the space, with `S`, and no source token follows `S` (SmolLM2 went on with `uit` and wrote
        "Suitcase Path")."""
        found: dict[int, int] = {}
        if not value[-1].isalnum():
            return found
        for match in re.finditer(re.escape(value), self.text):
            if match.start() > 0 and self.text[match.start() - 1].isalnum():
                continue  # a value copies from the start of a word
            # only the rest of the word: at a word's end the copy may stop ("Gold", not "Gold price per ounce")
            rest = _WORD_REST.match(self.text, match.end(), match.end() + PIECE).group()  # type: ignore[union-attr]
            for k in range(1, len(rest) + 1):
                if (token := self.vocabulary.get(rest[:k])) is not None:
                    found[token] = max(found.get(token, 0), k)
        return found

    def bias(self, logits: Any, generated: Sequence[int], text: str) -> None:
        # before any bias: the model's wish; only where the text ends in a digit (the search scans the whole text)
        if text[-1:].isdigit() and (number := _NUMBER_VALUE.search(text)) is not None:
            self._go_on(logits, number.group(1).lstrip("-"), text)
        elif (decimal := _DECIMAL_VALUE.search(text)) is not None:
            self._decimals(logits, decimal.group(1).lstrip("-"), decimal.group(2), text)
        tokens, sequence = self.active
        if len(tokens):
            logits[tokens] += self.strength / 2
        opening = _VALUE.search(text)
        value = _INSIDE.search(text) if opening is None else None
        item = self._item_inside(text) if opening is None and value is None else None
        if item is not None:  # an array's item copies as a value does ("oats", not "oatments"), and a word whole
            value = item
            if item.group(1)[-1:].isalpha() and self._mid_word(item.group(1)):
                logits[self.closing] -= PENALTY  # "spinach", not "spina"
            elif self._item_whole(text, item.group(1)):
                logits[self.closing] += PENALTY  # "Ember", "Northbound": not "Ember and Northbound"
        inside = value is not None
        following = self._next_in_copy(generated, sequence)
        if following:
            logits[following] += self.strength
        elif value is not None and value.group(1):
            # a copy the source's tokens do not follow: the longer a token goes on with it, the more it is favoured
            # (a model never split `Summit` as `S`+`u`+`m`..., so after `Su` it finds `m` unlikely)
            for token, letters in self._next_letters(value.group(1)).items():
                logits[token] += self.strength * min(1 + letters, LETTERS_CAP)
        if value is not None and self.active is self.sources["all"]:
            for barred in self._word_breaks(value.group(1)):
                logits[barred] -= PENALTY  # "Meals on Wheels", not "MealOnWheels" nor "Meal on Wheels"
        if opening is not None:
            logits[self.bad_openings[1 if opening.group(1) else 0]] -= PENALTY
            if not opening.group(1):
                self._cue_opens(logits, text)
            elif (
                self.active is self.sources["all"]
                and (key := _KEY.search(text)) is not None
                and key.group(1) in self.free  # free text: not a call's name, nor a choice of an enum ("city")
                and (lowered := self._lowered_names) is not None
            ):
                logits[lowered] -= PENALTY  # "Spring Picnic", not "spring-picnic"
        elif _ITEM_OPENED.search(text):  # an array's item or an object's key opens as a value does
            logits[self.bad_openings[1]] -= PENALTY
            if item is not None:
                self._next_item(logits, text)
                array_key = _ARRAY_KEY.search(text)
                free = array_key is not None and array_key.group(1) in self.free
                if free and (lowered := self._lowered_names) is not None:
                    logits[lowered] -= PENALTY
        elif _ITEM_NEXT.search(text):  # ... and not with its quote and punctuation in one token (`"}}}`)
            logits[self.bad_openings[2]] -= PENALTY
        self.copying = False
        if (array := _ARRAY_VALUE.search(text)) is not None:
            self.copying = bool(self.number_lists) and self._copy_list(logits, array.group(1))
            if not self.copying and self._loose_held(array.group(1)):
                logits[self.commas] -= PENALTY  # "from 0 to 3": [0, 3], not [0, 3, 0, 0, 0]
        if runaway_item(text, self.lowered, self._whole):  # a list that takes an item again, or one from nowhere,
            # or that holds a whole list of the request, ends here
            logits[self.commas] -= PENALTY
        if self.markup is not None and (opening is not None or inside):
            logits[self.markup] -= PENALTY
        if inside and _SEPARATED.search(text):
            logits[self.closing] -= PENALTY
        writing = value is not None and bool(value.group(1).strip()) and self.active is self.sources["all"]
        opens = opening is not None and bool(opening.group(1))  # right after a string value's opening quote
        key = _KEY.search(text) if writing or opens or self.listed_parameters else None
        if (writing or opens) and key is not None and (kind := self._kind_tokens(key.group(1), opens)) is not None:
            logits[kind] -= PENALTY  # a value neither opens nor goes on with its parameter's kind ("Rosewood finish")
        if opens and key is not None and (chosen := self._choice_tokens(key.group(1))) is not None:
            logits[chosen] -= PENALTY  # `language` is not "beginner", a `level`
        region = key is not None and key.group(1) in self.regions
        if writing and value is not None and region and self._region_follows(value.group(1)):
            logits[self.quoting] -= PENALTY  # "Denver, Colorado" for "the city and state", not "Denver" nor "Denver,"
        elif writing and value is not None and self.dated and self._date_follows(value.group(1)):
            logits[self.closing] += PENALTY  # "Harborfront to Old Town", not "... on the 2nd of May 2027"
        elif writing and value is not None and self._item_ends(key, value.group(1)):
            logits[self.closing] += PENALTY  # "Eagle Ridge", not "Eagle Ridge, Summit Path": one call an item
        if key is not None and key.group(1) in self.listed_parameters:  # a value a list's items vary
            if self.spent is not None:
                logits[self.spent] -= 2 * self.strength
            if self.wanted is not None and opening is not None:
                logits[self.wanted] += self.strength
        if key is not None and (forms := self.pinned.get(key.group(1))):
            self._pin(logits, text, forms)
        if self.listed is not None and (naming := self._naming.search(text)) is not None:
            self._name_unfinished(logits, text, naming)

    def _name_unfinished(self, logits: Any, text: str, naming: re.Match[str]) -> None:
        """A call's name goes on towards a tool whose earlier calls of the turn took items of a list that some item
        of is left (`strength` more): the turn goes on for those items ("interest on $675,000 for 5 and 20 years":
        SmolLM2 wrote its second call with the loan's other tool). The earlier calls are read once per name, where
        it starts, not at each of its tokens."""
        if self._unfinished[0] != naming.start():
            assert self.listed is not None
            calls = self.format.parse(text[: naming.start()]).tool_calls
            names = dict.fromkeys(c.name for c in calls if c.name != self.finish)
            unfinished = [n for n in names if self.listed([c for c in calls if c.name == n])[1]]
            self._unfinished = (naming.start(), unfinished)
        forms = [json.dumps(name)[1:] for name in self._unfinished[1]]  # the name and its closing quote
        found = continuing(naming.group(1), forms, self.vocabulary) if forms else None
        if found is not None and found[0]:
            logits[sorted(found[0])] += NAME_BIAS * self.strength

    def _loose_held(self, written: str) -> bool:
        """Whether a flat array of numbers that opened with a number the source writes outside its lists in brackets
        ("from 0 to 3") holds, with the number it is writing, every such number as often as the source writes it:
        nothing is left for a further item."""
        if "[" in written[1:] or not written[-1:].isdigit():
            return False
        held = Counter(_ANY_NUMBER.findall(written))
        first = _ANY_NUMBER.search(written)
        if first is None or first.group() not in self.loose_numbers:
            return False
        return all(held[n] >= k for n, k in self.loose_numbers.items())

    def _copy_list(self, logits: Any, written: str) -> bool:
        """An array value that has written the first number of a list the source writes in brackets (`number_lists`),
        and goes on as that list does, copies it to its end and closes there: SmolLM2 wrote [7, 3, 9, 1] for "[7, 3,
        9] and [2, 8, 6, 1]", [[1, 2], [3, 4], [0, 1], [1, 0]] for two matrices, and left numbers out of a long list
        whose numbers come twice ("[1, 2, 2, 3, 3, 3, 4, 4, 4, 4]"). Whether it is copying one (`copying`: the loop
        guards stand aside, as a list's numbers may come again and again)."""
        if "," not in written:
            return False  # the first number may still go on: a list is chosen by its first number
        found = continuing(written, self.number_lists, self.vocabulary)
        if found is None or not found[0]:
            return False
        barred = self._torch.ones(logits.shape[-1], dtype=self._torch.bool)
        barred[sorted(found[0])] = False
        logits[barred] -= PENALTY
        return True

    def _pin(self, logits: Any, text: str, forms: list[str]) -> None:
        """A pinned value is written as one of `forms`: only the tokens that go on towards one of them, and, once it
        is one (a number), none that would go on with the number; unchanged once the value has left them all."""
        written = _WRITTEN.search(text)
        found = continuing(written.group(1), forms, self.vocabulary) if written is not None else None
        if found is None:
            return
        allowed, whole, closes = found
        barred = self._torch.ones(logits.shape[-1], dtype=self._torch.bool)
        if closes:
            barred[self.closing] = False
        if whole:  # the number may end here: only what would go on with it is barred (the grammar closes it)
            barred[:] = False
            barred[self.number_goes_on] = True
        if allowed:
            barred[sorted(allowed)] = False
        logits[barred] -= PENALTY

    @functools.cached_property
    def _lowered_names(self) -> Any:
        """The first tokens (three letters or more) of the source's capitalised words written in lowercase, where the
        source writes the word capitalised only and no word of it in lowercase opens so: a free text value (`free`;
        an enum's choice is written as the enum spells it: "city" for "New York City") copies a name as the source
        writes it (SmolLM2 opened "Spring Picnic" as `spring`, and its copy, no longer the source's tokens,
        ran on as "spring-picnic"). None when there are none; found once per turn."""
        barred = set()
        for word in self.capitalised - self.lowercase:
            token = self.tokenizer(word, add_special_tokens=False)["input_ids"][0]
            piece = token_texts(self.tokenizer)[token]
            if len(piece) >= 3 and piece.isalpha() and not any(w.startswith(piece) for w in self.lowercase):
                barred.add(token)
        return self._torch.tensor(sorted(barred), dtype=self._torch.long) if barred else None

    def _mid_word(self, value: str) -> bool:
        """Whether the source writes `value` from a word's start, and everywhere goes on with a letter: it stops
        inside a word. Found once per source and value (it is asked at every token of an array's item)."""
        key = (self.text, value)
        if key not in self._mid:
            found = list(re.finditer(rf"(?<![^\W_]){re.escape(value)}", self.text, re.IGNORECASE))
            self._mid[key] = bool(found) and all(self.text[m.end() : m.end() + 1].isalpha() for m in found)
        return self._mid[key]

    def _item_whole(self, text: str, value: str) -> bool:
        """Whether an array's string item so far, `value`, is a whole item of a list the request writes: one that
        ends there in the list (`item_end`: "Ember" of "Ember and Northbound"), or with the items before it the
        list whole (`array_left`: "The Lanterns" of "Neon Fields and The Lanterns in Daejeon"). A name goes on
        through "and" ("Meals on Wheels"), so inside an array SmolLM2 wrote the songs "Ember and Northbound" as one,
        and ran a last item on into the clause after it."""
        array = _OPEN_ARRAY.search(text)
        if self.item_end is None or not value or value != value.strip() or array is None:
            return False
        key = (array.group(1)[: array.group(1).rfind('"')], value)  # the items before it, and it
        if key not in self._item_wholes:
            self._item_wholes[key] = self._ends_list(_STRING.findall(key[0]), value)
        return self._item_wholes[key]

    def _ends_list(self, before: list[str], value: str) -> bool:
        """`_item_whole` for items and a value not seen yet."""
        assert self.item_end is not None
        if self.item_end(value):
            return True
        if not self._whole([*before, value]):
            return False
        # the list's last item: where the request goes on with punctuation, a clause, or a lowercase word after a
        # name ("Northbound run?"); not with more of the item ("wool" of "gloves and wool hat": the list reading
        # takes one word after "and")
        found = list(re.finditer(rf"(?<![^\W_]){re.escape(value)}", self.request, re.IGNORECASE))
        named = value.split()[-1][:1].isupper()
        return bool(found) and all(
            _AFTER_LAST_ITEM.match(self.request, m.end()) or (named and _AFTER_NAME.match(self.request, m.end()))
            for m in found
        )

    def _whole(self, items: list[str]) -> bool:
        """Whether an array's string items hold a list of the request whole (`array_left`)."""
        return self.array_left is not None and self.array_left(items) == []

    def _next_item(self, logits: Any, text: str) -> None:
        """At a string item's opening in an array that copies a list of the request, the first tokens of the list's
        next item no item holds yet get 2 x `strength`: the copy goes on in the list's order ("butter", not "bread"
        again)."""
        array = _OPEN_ARRAY.search(text)
        if self.array_left is None or array is None:
            return
        left = self.array_left(_STRING.findall(array.group(1)))
        if left:
            for variant in {left[0], left[0][:1].upper() + left[0][1:]}:
                logits[self.tokenizer(variant, add_special_tokens=False)["input_ids"][0]] += 2 * self.strength

    @staticmethod
    def _item_inside(text: str) -> re.Match[str] | None:
        """Inside a string item of the array being written (not of an object in it), and what it holds so far."""
        array = _OPEN_ARRAY.search(text)
        if array is None or "{" in array.group(1):
            return None
        return _ITEM_INSIDE.search(array.group(1))

    def _item_ends(self, key: re.Match[str] | None, value: str) -> bool:
        """Given `item_end` (`local_mentions.ends_item`), whether the value is a whole item of a list in the request,
        for a parameter whose one value is not a list itself (`lists`) nor a place with its region (`regions`)."""
        if self.item_end is None or key is None or key.group(1) in self.lists or key.group(1) in self.regions:
            return False
        return self.item_end(value)

    def _date_follows(self, value: str) -> bool:
        """Whether the source writes `value` from a word's start and goes on, within two short words, with a date in
        digits: that date is another parameter's value (the `dates` switch offers it there), so the value ends."""
        return re.search(rf"(?<!\w){re.escape(value)}{_INTO_DATE}", self.text) is not None

    def _region_follows(self, value: str) -> bool:
        """Whether the source writes `value` (not holding a comma yet: one region), from a word's start, followed by a
        comma and a capitalised name that ends the list there: "Denver, Colorado with ...", not "New York City, Los
        Angeles, Alabama" nor "Paris, Rome and Oslo" (places listed); or a place listed with its region (`placed_pairs`:
        "Nagoya, Japan, Porto, Portugal and ...")."""
        if "," in value:
            return False
        if any(value.lower() == place.lower() for place, _ in placed_pairs(self.request)):
            return True
        return re.search(rf"(?<!\w){re.escape(value)}{_REGION}", self.text) is not None

    def _go_on(self, logits: Any, digits: str, text: str) -> None:
        """A number value that has copied the leading group of a number the source writes with separators, or more
        of it, goes on with its next digit (or its decimal point): a JSON number has no separator, and at the barred
        comma SmolLM2 took the point ("$18,500": 18.5). Where another number of the source starts with the same
        digits ("1,250,000" and "15 years"), only when the model's likeliest token opens with a comma. Once the whole
        number is written, it ends there (unless a longer number of the source starts with it). So does a number
        the source writes without separators, but for its decimal point: no further digit (SmolLM2 wrote 500000
        for "within 5 km" and 50000000 for "the next 50 years"; `founded` then turned the call down)."""
        if len(_QUOTE.findall(text)) % 2:
            return  # inside a string (an array's item)
        if self._cue_decides(logits, digits, text):
            return
        longer = any(n.startswith(digits) and n != digits for n in self.numbers)
        going = {plain for plain, lead in self.grouped if lead <= len(digits) < len(plain) and plain.startswith(digits)}
        if not going:
            if any(digits == plain for plain, _ in self.grouped) and not longer:
                # the whole copy is written: it goes on no further (SmolLM2 wrote 6750000, then 675000.5)
                logits[self.number_goes_on] -= PENALTY
            elif digits in self.whole_parts and not any(
                n.startswith(digits) and n[len(digits) : len(digits) + 1].isdigit() for n in self.numbers
            ):  # "5 km", "5.0 km": 5, then no digit (a point may follow)
                logits[self.digits_go_on] -= PENALTY
            return
        # where another number starts so too, the model's own wish decides: a comma next is the grouped one's copy
        if any(n.startswith(digits) for n in self.numbers - going) and int(logits.argmax()) not in self.comma_ids:
            return
        for plain in going:
            logits[self.vocabulary[plain[len(digits)]]] += PENALTY

    def _decimals(self, logits: Any, whole: str, decimals: str, text: str) -> None:
        """A number that copies a source number's whole part goes on past its point only as a source number does
        (or its share of 100), or with zeros ("4.0"): SmolLM2 wrote 4.5 for "at 3%, 4%, and 5%", and `founded`
        turned the call down."""
        if len(_QUOTE.findall(text)) % 2 or whole not in self.whole_parts:
            return  # inside a string, or a number the source does not write
        so_far = f"{whole}.{decimals}"
        going = {n[len(so_far)] for n in self.decimal_forms if n.startswith(so_far) and len(n) > len(so_far)}
        if set(decimals) <= {"0"}:
            going.add("0")
        logits[self.digits_go_on] -= PENALTY
        logits[sorted(self.vocabulary[d] for d in going)] += PENALTY

    def _cue_opens(self, logits: Any, text: str) -> None:
        """A value opens with `strength` more on the first digit of the request's numbers cued for its parameter
        (`local_cues.named_numbers`: "at 5.0 and 6.75% over fifteen years", `years`: 1), where it has some."""
        key = _KEY.search(text)
        cued = named_numbers(key.group(1), self.request) if key is not None else frozenset()
        firsts = {n[0] for n in self.asked_numbers if float(n) in cued}
        if firsts:
            logits[sorted(self.vocabulary[f] for f in firsts)] += self.strength

    def _cue_decides(self, logits: Any, digits: str, text: str) -> bool:
        """Where the request's numbers that start with the digits written so far are told apart by their cue for
        the parameter being written (`local_cues.named_numbers`: "$10,000 ... for 10, 20 and 30 years", `years` at
        "10"), the value goes on to the one cued number that goes on, or ends at the cued number it is; whether it
        decided. SmolLM2 went on copying 10,000 (years 10000, and 36000 for "thirty years" after "36,000")."""
        key = _KEY.search(text)
        starting = {n for n in self.numbers if n.startswith(digits)}
        if key is None or not starting <= self.asked_numbers:  # a result's number: the request's cues do not tell
            return False
        cued = named_numbers(key.group(1), self.request)
        fits = {n for n in starting if float(n) in cued}
        # only where the other numbers are cued as something else: "$2,000,000 goal" and "toward $25,000" are both
        # dollars, and a `goal` may be either
        kinds = {c for n in fits for c in cue_of(float(n), self.request)}
        if any(cue_of(float(n), self.request) & kinds for n in starting - fits):
            return False
        ahead = fits - {digits}
        if digits in fits and not ahead and fits != starting:
            logits[self.number_goes_on] -= PENALTY
        elif digits not in fits and len(ahead) == 1:
            logits[self.vocabulary[next(iter(ahead))[len(digits)]]] += PENALTY
        else:
            return False
        return True

    def _kind_tokens(self, parameter: str, opening: bool = False) -> Any:
        """The first tokens of the source's words that share a stem with a word of `parameter`'s name and that the
        source writes in lowercase only: there they say what kind of thing a value is ("the Rosewood finish", "a hill
        slope", "New York time zone"), and the value is the rest. Written capitalised they may be part of a name
        ("Linden Street" for `street`), and stay. At a value's `opening`, only the kinds the source writes right
        before a word that names a value ("the trail Fern Gully Loop", "language german"), not before a joining word
        or a stop: there the kind may be the value itself ("10 units and ..." for `unit`). None when there are none."""
        if (parameter, opening) not in self._kinds:
            kinds = [
                w
                for w in self.words
                if w not in self.capitalised and any(same_stem(w, n) for n in name_words(parameter))
            ]
            if opening:
                kinds = [w for w in kinds if re.search(rf"(?<![\w-]){re.escape(w)}\s+(?!{_JOINING}\b)\w", self.text)]
            self._kinds[(parameter, opening)] = self._first_tokens(kinds, spaced=not opening)
        return self._kinds[(parameter, opening)]

    def _first_tokens(self, words: Iterable[str], spaced: bool) -> Any:
        """The first tokens of `words`, lowercase or capitalised (after a space, if `spaced`), of three letters or
        more (a short piece starts other words too); None when there are none."""
        barred = set()
        for word in words:
            for variant in (word, word.capitalize()):
                token = self.tokenizer(" " + variant if spaced else variant, add_special_tokens=False)["input_ids"][0]
                if len(token_texts(self.tokenizer)[token].strip()) >= 3:
                    barred.add(token)
        return self._torch.tensor(sorted(barred), dtype=self._torch.long) if barred else None

    def _choice_tokens(self, parameter: str) -> Any:
        """The first tokens of the words that are another parameter's choices (`others`), where the source writes
        them: a free string value does not open with one."""
        if parameter not in self._others_tokens:
            said = [w for w in self.others.get(parameter, ()) if w in self.words]
            self._others_tokens[parameter] = self._first_tokens(said, spaced=False)
        return self._others_tokens[parameter]

    def update(self, text: str) -> None:
        """When a call's arguments start: ground a finish on the results; and, given `listed`, find the parameters
        the earlier calls took a list's items for, the words of those values this tool's earlier calls used up (as
        often as the source holds them) and the first tokens of the items still to call."""
        openings = list(self._opening.finditer(text))
        if len(openings) <= self._openings:
            return
        self._openings = len(openings)
        opening = openings[-1]
        name = opening.group(1)
        which = "results" if name == self.finish else "all"
        self.active, self.text = self.sources[which], self.texts[which]
        self.lowered = self.text.lower()
        self.listed_parameters, self.spent, self.wanted, self.pinned = set(), None, None, {}
        if self.listed is None or name == self.finish:
            return
        earlier = [c for c in self.format.parse(text[: opening.start()]).tool_calls if c.name == name]
        self.listed_parameters, items = self.listed(earlier)
        self.pinned = self.pins(earlier, listed=self.listed_parameters) if self.pins is not None else {}
        used: Counter[str] = Counter()
        for call in earlier:
            arguments = call.args_or_raw()
            if call.name == name and isinstance(arguments, dict):
                for key in self.listed_parameters & arguments.keys():
                    for value in call_values(arguments[key]):
                        used.update(w.lower() for w in _WORDS.findall(value))
        spent = {i for w, n in used.items() if w in self.words and n >= self.words[w] for i in self.by_word[w]}
        self.spent = self._torch.tensor(sorted(spent), dtype=self._torch.long) if spent else None
        first = {self.tokenizer(v, add_special_tokens=False)["input_ids"][0] for v in items if v.strip()}
        self.wanted = self._torch.tensor(sorted(first), dtype=self._torch.long) if first else None
