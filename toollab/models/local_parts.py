"""A request that asks several things at once, read as its parts (the `decompose` switch).

"When does the beginner german course meet? Also: Schedule for french, intermediate level?" is two requests
joined by "Also". SmolLM2-135M writes one call for a single request far more often right than it writes all the
calls of a joined one (on the dev set, simple items 26 of 30 right against parallel ones 13 of 30), so a first
calling turn whose request splits this way decodes one row per part, each seeing only its part as the request,
and the turn's calls are the parts' calls in order.

A part starts only at a sentence that opens with a connective: an additive one ("Also", "Additionally", "Plus",
"Moreover", "Furthermore", "Besides", "As well"), or a sequencing one ("Then", "Next", "After that", "Finally",
"Lastly", ...) when the sentence it opens asks (it does not open with another subject: "Then, you train another
model ..." goes on telling) and does not point back ("it", "the result", "the same", "again", "those"): what
follows "Then, convert it to Fahrenheit." needs what comes before, what follows "Then, what's the weather in
Oslo?" does not. Sentences without a connective stay with the part before them, so context ("I'm rated 1450 and
got a loss against a 1875. What's my new rating?") and asides ("I'm asking for a friend.") are never cut off from
their question. Inside a sentence, a clause after ", then", ", and then" or ", and also" is a part of its own when
it asks on its own (it opens with a question word, a modal or a verb of asking, and does not point back): "...
first, raise 3 to the power of 5, then raise 2 to the power of 3." is two parts; "... selling tomatoes and also pet
food" is one. So is a question that "and" joins to another ("..., what is the total and how close is the Clean
Rivers campaign to its goal?"), unless it points back ("... and how long it takes").

A request that states its cases one by one with ordinals ("... for three cases: the first has ..., the second
has ..., and the third has ...", "First: ... Second: ...") splits at them: each part is what comes before the
first ordinal (what to do for each), its own case, and a closing sentence that speaks of them all ("How long does
each take?").

A clause that asks for the same again with other values ("... over 5 years? Can you do the same but for 10 years
instead?") is a part of its own: the ask before it with the clause's values in place (`local_repeats`), shown the
one tool that fits that ask best. A part that states its cases side by side ("... after 30 years at 5% and after
20 years at 4%?") is split once more by the local model, which knows the tools (`local_cases.by_cases`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from toollab.harness.chain import expression_tool, written_expressions
from toollab.harness.messages import AssistantMessage, Message, ToolCall, UserMessage
from toollab.harness.request import ToolSelector
from toollab.models.local_names import choice_words, name_words, same_stem
from toollab.models.local_numbers import in_digits
from toollab.models.local_places import PLACE
from toollab.models.local_repeats import again_clause, done_again
from toollab.retrieval.relevance import tool_scores, without_quoted
from toollab.tools import ToolSpec

MAX_PARTS = 4  # like coverage: BFCL's parallel items ask 2 to 4 things
_ADDITIVE = r"(?:Also|Additionally|Plus|Moreover|Furthermore|Besides|As well)"
_SEQUENCE = r"(?:Then|And then|Next|After that|After this|Afterwards|Finally|Lastly|Last)"
_CONNECTIVE = rf"(?:{_ADDITIVE}|{_SEQUENCE})"
_BOUNDARY = re.compile(rf"(?<=[.?!])\s+(?={_CONNECTIVE}\b)")
_LEAD = re.compile(rf"^{_CONNECTIVE}\b[,:;]?\s*")
_SEQUENCED = re.compile(rf"^{_SEQUENCE}\b")
# A sentence that tells rather than asks: it opens with a subject other than the asker ("Then, you train another
# model with 200 trees.", "Next, the second car starts at 20 m/s."): a story's next step, not a request of its own.
_TELLS = re.compile(
    r"^(?:you|he|she|they|we|it|there|this|that|these|those|the|a|an|his|her|their|its|our|your|my)\b", re.I
)
# Words by which a sentence leans on what came before it: a pronoun for an earlier thing, person or result, "the
# same", "again", "this" (but "this time", which varies a case the sentence then states whole).
# "The total" (sum, difference, product) with nothing after it that says of what ("multiply the total by 3", not
# "the total cost" or "the sum of 4 and 5") is the earlier step's result.
_POINTS_BACK = re.compile(
    r"\b(?:it|its|itself|they|them|their|these|those|he|him|his|she|her|hers|same|result|results|answer|previous|"
    r"above|earlier|again|repeat)\b|\bthis\b(?!\s+time)|"
    r"\bthe\s+(?:total|sum|difference|product)\b(?=\s*(?:$|[.,;?!]|(?:by|to|from|with|and|times|plus|minus|"
    r"divided|multiplied|into)\b))",
    re.I,
)


_PRONOUN = re.compile(r"\b(?:it|its|itself|they|them|their|he|him|his|she|her|hers)\b", re.I)
# "it" as the subject of a question about a case the clause states ("is it safe to plant out in Porto yet?", "how
# long will it take ...?"): no earlier thing
_DUMMY_IT = re.compile(r"\b(?:is|was|will|would|does|did|can|could|should)\s+it\b|\bit(?:'s|\s+is)\b", re.I)
_NAMED_BEFORE = re.compile(r"(?<!^)(?<![.?!:]\s)\b[A-Z][\w-]+|['\"][^'\"]{2,}['\"]")


def leans_back(clause: str) -> bool:
    """Whether a clause leans on what came before it (`_POINTS_BACK`), not counting a pronoun for a name the
    clause gives before it ("how close is the Library Renewal campaign to its goal?") nor the "it" of a question
    about a case ("is it safe to plant out in Porto yet?"): SmolLM2 was shown such clauses with the part before."""
    for found in _POINTS_BACK.finditer(clause):
        if not _PRONOUN.fullmatch(found.group()):
            return True
        before = clause[: found.start()]
        if found.group().lower() == "it" and _DUMMY_IT.search(clause, max(0, found.start() - 7), found.end() + 3):
            continue
        if _NAMED_BEFORE.search(before.strip()) is None:
            return True
    return False


# a value a clause gives: a digit, a quoted span, or a capitalised word past its first (not "I")
_GIVES = re.compile(r"\d|(?<!\w)['\"][^'\"]{2,}['\"]|(?<=\s)(?!I\b|I')[A-Z]")


def names_nothing(clause: str) -> bool:
    """Whether a clause gives no value, in digits, words, quotes or capitals ("and what would the monthly payment
    be?" after "How much interest would I pay on $50,000 at 6% over 10 years,"): it asks about what came before,
    and shown alone SmolLM2 made up a loan of $100 at 0.05% over 3 years."""
    return _GIVES.search(clause) is None and _GIVES.search(in_digits(clause)) is None


@dataclass(frozen=True)
class Part:
    """One part of a request: what its row is shown as the request, and whether it may want several calls."""

    request: str
    several: bool
    tool_of: str | None = None  # an ask done again for other values: one tool, the one that fits the ask best


def request_parts(request: str, tools: Sequence[ToolSpec] = ()) -> list[Part]:
    """The request's parts, each without its connective and starting with a capital; the request alone (one part)
    when it does not split, or splits into more than MAX_PARTS or into a part with nothing left to ask. Joined
    requests split first ("Also: ...", "Then, ..."), unless they number their asks at sentence starts ("First, ...
    Second, ... Lastly, ..."); a request that does not split so may split at its ordinals. The `tools` tell which
    lowercase words are choices (`parts_done_again`)."""
    parts = _split(request, tools)
    if len(parts) > 1 and one_computation(request, [p.request for p in parts]):
        return [Part(request, False)]
    return parts


def one_computation(request: str, pieces: Sequence[str]) -> bool:
    """Whether `request` writes one computation in steps ("Multiply 6 by 7, then subtract 2.": "(6 * 7) - 2")
    that none of its pieces holds whole: then it is one ask, whichever tools its steps' words fit."""
    spans = written_expressions(in_digits(request))
    return len(spans) == 1 and not any(spans[0] in written_expressions(in_digits(p)) for p in pieces)


def _split(request: str, tools: Sequence[ToolSpec]) -> list[Part]:
    """The request's parts as `request_parts` finds them, before it joins the steps of one computation."""
    if marked := marked_parts(request):
        return marked
    if again := parts_done_again(request, tools):
        return again
    pieces: list[str] = []
    for piece in _BOUNDARY.split(request.strip()):
        rest = _LEAD.sub("", piece)
        if pieces and _SEQUENCED.match(piece) and (leans_back(rest) or _TELLS.match(rest)):
            pieces[-1] = f"{pieces[-1]} {piece}"  # it needs what came before, or tells more of it: the same part
        else:
            pieces.append(piece)
    pieces = [clause for piece in pieces for clause in joined_clauses(piece)]
    if len(pieces) < 2:
        return enumerated_parts(request)
    if len(pieces) > MAX_PARTS:
        return [Part(request, lists_several(request))]
    parts = [_LEAD.sub("", p).strip() for p in pieces]
    if any(len(p.split()) < 2 for p in parts):
        return [Part(request, lists_several(request))]
    return [Part(_capital(p), lists_several(p)) for p in parts]


def parts_done_again(request: str, tools: Sequence[ToolSpec] = ()) -> list[Part]:
    """The parts of a request that asks for the same again with other values ("... over 5 years? Can you do the
    same but for 10 years instead?"): the parts before that clause, the last of them done again with the clause's
    values (`local_repeats.done_again`; once for each item of a list), and the parts after it; [] when it has no
    such clause, the clause's values find no place in the ask before it, or there would be more than MAX_PARTS."""
    around = again_clause(request)
    if around is None:
        return []
    before, clause, after = around
    head = request_parts(before, tools)
    redone = done_again(head[-1].request, clause, choice_words(tools))
    if redone is None:
        return []
    # its tool is the ask's: to MiniLM "Progress of Winter Coats toward $2,000,000" fit the donation tool better
    redo = [Part(ask, lists_several(ask), tool_of=head[-1].request) for ask in redone]
    rest = _capital(_LEAD.sub("", after).strip()) if len(after.split()) >= 2 else ""
    parts = [*head, *redo, *(request_parts(rest, tools) if rest else [])]
    return parts if len(parts) <= MAX_PARTS else []


# Inside a sentence: ", and then", ", and also", ", then", "; then" (or "and then" / "and also" without the comma)
# before a clause that asks on its own: it opens with a question word, a polite modal, or a verb of asking
# (`_ASKS`); a clause that opens otherwise goes on with what came before ("... and also pet food", "... and then
# accelerates at 10 m/s^2", "..., then from my office to ...").
# A question word after "and" opens a question of its own too ("What position is Northfield United in and what was
# the score of ...?").
_CLAUSE_JOIN = re.compile(
    r"(?:[,;]\s+(?:and\s+)?(?:then|also)|\s+and\s+(?:then|also))\s+(?=[a-z])"
    r"|,?\s+and\s+(?=(?:what|what's|which|who|where|when|how)\s+[a-z])"
)
_ASKS = re.compile(
    r"(?:what|what's|which|who|where|when|how|can|could|would|will|should|shall|may|is|are|was|were|does|did|has|"
    r"have|please|get|find|calculate|compute|fetch|provide|"
    r"tell|give|show|search|book|check|list|predict|estimate|determine|identify|retrieve|analy[sz]e|compare|send|play|"
    r"generate|create|sort|filter|sum|plot|translate|schedule|order|buy|make|convert|look|locate|recommend|suggest|"
    r"solve|evaluate|measure|count|return|display|reserve|rent|obtain|assess|describe|explain|summari[sz]e|verify|"
    r"track|raise|use|multiply|divide|subtract|add)\b"
)


def joined_clauses(sentence: str) -> list[str]:
    """A sentence's clauses where it joins requests inside it ("... first, raise 3 to the power of 5, then raise 2
    to the power of 3.": "... raise 3 to the power of 5.", "Raise 2 to the power of 3."), each ending as the sentence
    ends; the sentence alone when a clause after a join does not ask on its own (`_ASKS`), points back
    (`_POINTS_BACK`: "and then do the same for ...") or gives no value of its own (`names_nothing`)."""
    text = sentence.strip()
    joins = list(_CLAUSE_JOIN.finditer(text))
    if not joins:
        return [sentence]
    end = text[-1] if text[-1] in ".?!" else ""
    starts = [0, *(m.end() for m in joins)]
    stops = [*(m.start() for m in joins), len(text)]
    clauses = [text[a:b].strip().rstrip(".?!").strip() for a, b in zip(starts, stops, strict=True)]
    if not clauses[0] or any(not _ASKS.match(c) or leans_back(c) or names_nothing(c) for c in clauses[1:]):
        return [sentence]
    return [_capital(c) + end for c in clauses]


_ORDINALS = (("first", "1st"), ("second", "2nd"), ("third", "3rd"), ("fourth", "4th"), ("fifth", "5th"))
_ORDINAL = re.compile(r"\b(?:the\s+)?(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\b(\s*[:,])?", re.I)
SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_ALL_OF_THEM = re.compile(r"\b(?:each|them|these|those|they|all|both)\b", re.I)
_TRAILING_JOIN = re.compile(r"[\s,;]*(?:\band)?[\s,;]*$", re.I)


def enumerated_parts(request: str) -> list[Part]:
    """The parts of a request that states its cases with ordinals, first, second, ... in order (2 to MAX_PARTS of
    them, none past); the request alone otherwise. An ordinal written as a list's marker ("First: ...",
    "Second, ...") is dropped from its part, which may ask several things as a request may; one inside the words
    ("the second circle has ...") stays, and its part is one case: one call."""
    whole = [Part(request, lists_several(request))]
    text = request.strip()
    marks: list[re.Match[str]] = []
    for match in _ORDINAL.finditer(text):
        word = match.group(1).lower()
        if len(marks) < len(_ORDINALS) and word in _ORDINALS[len(marks)]:
            marks.append(match)
        elif any(word in names for names in _ORDINALS[: len(marks) + 1]):
            return whole  # an ordinal again, or out of order: not an enumeration of cases
    if not 2 <= len(marks) <= MAX_PARTS:
        return whole
    stem = _context(text[: marks[0].start()].strip())
    segments = [text[m.start() : n.start()] for m, n in itertools.pairwise(marks)]
    last, *rest = SENTENCE_END.split(text[marks[-1].start() :], maxsplit=1)
    tail = rest[0].strip() if rest and _ALL_OF_THEM.search(rest[0]) else ""
    segments.append(last if tail else text[marks[-1].start() :])
    opens = not stem or stem[-1] in ".?!:"  # a case opens a sentence of its own
    end = text[-1] if text[-1] in ".?!" else "."
    parts = []
    for mark, segment in zip(marks, segments, strict=True):
        own = _TRAILING_JOIN.sub("", segment[mark.end() - mark.start() :] if mark.group(2) else segment).strip()
        if len(own.split()) < 2:
            return whole
        own = (_capital(own) if opens else own) + ("" if own[-1] in ".?!" else end)
        parts.append(Part(" ".join(p for p in (stem, own, tail) if p), bool(mark.group(2)) and lists_several(own)))
    return parts


_MARKERS = (("first", "firstly"), ("second", "secondly"), ("third", "thirdly"), ("fourth", "fourthly"))
_LAST_MARKERS = ("lastly", "finally")
# an ask's number where a sentence opens ("First, ...", "Secondly: ...", "Lastly, ...")
_MARKER = re.compile(
    r"(?:^|(?<=[.?!])\s+)[\"']?(first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|lastly|finally)\s*[,:]\s*", re.I
)


# Sentences that only say how many asks follow ("I have two questions.", "Could you help me with a couple of
# things?", "Two things, please."): no context for the parts
_ANNOUNCES = re.compile(
    r"(?:(?:(?:i|we)\s+have|(?:can|could|would|will)\s+you\s+(?:please\s+)?help\s+(?:me|us)\s+with|here\s+are)\s+)?"
    r"(?:a\s+few|a\s+couple\s+of|two|three|four|some|several|\d)\s+(?:more\s+)?(?:questions|things|tasks|requests)"
    r"(?:\s+for\s+you)?(?:,?\s+please)?\s*[.?!:]",
    re.I,
)


def _context(stem: str) -> str:
    """What comes before a request's numbered asks, as the context each is shown with: nothing where its
    sentences only announce them ("I have two questions.": shown it, SmolLM2 made two calls of the first ask)."""
    sentences = SENTENCE_END.split(stem)
    return "" if all(_ANNOUNCES.fullmatch(s.strip()) for s in sentences if s.strip()) else stem


def marked_parts(request: str) -> list[Part]:
    """The parts of a request that numbers its asks where sentences open ("Could you help me with a few things?
    First, ... Second, ... Lastly, ..."): each part is what comes before the first number (the context), its own
    sentences up to the next number, and a closing sentence that speaks of them all ("Could you do these for me?").
    [] when the request does not number its asks so (2 to MAX_PARTS numbers, "first" first and each next in order,
    "lastly" or "finally" only as the last), a part has nothing to ask, or a later sentence opens with a sequence
    word and leans on a result ("Then tell me the first result.")."""
    text = request.strip()
    marks: list[re.Match[str]] = []
    for match in _MARKER.finditer(text):
        word = match.group(1).lower()
        if len(marks) < len(_MARKERS) and word in _MARKERS[len(marks)]:
            marks.append(match)
        elif marks and word in _LAST_MARKERS:
            marks.append(match)
            break
        else:
            return []
    if not 2 <= len(marks) <= MAX_PARTS:
        return []
    stem = _context(text[: marks[0].start()].strip())
    segments = [text[m.end() : n.start()].strip() for m, n in itertools.pairwise(marks)]
    *last, closing = SENTENCE_END.split(text[marks[-1].end() :].strip())
    tail = closing if last and _ALL_OF_THEM.search(closing) else ""
    segments.append(" ".join(last) if tail else text[marks[-1].end() :].strip())
    parts = []
    for segment in segments:
        later = SENTENCE_END.split(segment)[1:]
        if len(segment.split()) < 2 or any(_SEQUENCED.match(s) and leans_back(s) for s in later):
            return []
        own = _capital(segment)
        parts.append(Part(" ".join(p for p in (stem, own, tail) if p), lists_several(own)))
    return parts


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


_LIST = re.compile(r",\s|\s(?:and|or|as\s+well\s+as)\s")
_PLACE_REGION = re.compile(rf"(?<![\w'-]){PLACE},\s+{PLACE}")
_LISTED_BEFORE = re.compile(r"(?:,|\b(?:and|or))\s*$")
_LISTED_AFTER = re.compile(r"^(?:\s*,\s*[A-Z]|\s+(?:and|or)\s)")
_PLEASE = re.compile(r",\s*please\b", re.IGNORECASE)  # "..., please" lists nothing


def lists_several(part: str) -> bool:
    """Whether a part may want several calls: it holds a list ("beans and carrots", "A, B or C"). A part without
    one asks one thing; SmolLM2 left free adds calls to it ("Is it safe to plant out in Tromso yet? When does frost
    end?" got row_spacing(vegetable="Tromso") besides last_frost_estimate). Two names joined by a comma alone, in no
    list, are a place and its region ("Population of Nagoya, Japan in 2010"), not a list: English joins a list of
    two with "and" or "or". Nor is the comma of "..., please"."""

    def unlisted(pair: re.Match[str]) -> str:
        alone = not _LISTED_BEFORE.search(pair.string[: pair.start()]) and not _LISTED_AFTER.match(
            pair.string[pair.end() :]
        )
        return pair.group().replace(",", "", 1) if alone else pair.group()

    return _LIST.search(_PLEASE.sub("", _PLACE_REGION.sub(unlisted, part))) is not None


@dataclass(frozen=True)
class EachPart:
    """A tool selector (`TopTools`) asked once per part of a request that asks several things (`request_parts`):
    the tools it keeps for any part, in the order offered; for a request that does not split, what it keeps for
    the request. On the whole of "What's the weather in Oslo? Then, how many words are in '...'?" the word counter
    scored under 0.7 of the weather tool and was not shown, so the second part got weather for "the quick brown
    fox"."""

    select: ToolSelector
    floor: float | None = None  # given, a part is split further where it asks for different tools (`by_tools`)

    def __call__(self, request: str, tools: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        parts = request_parts(request)
        if self.floor is not None:
            parts = by_tools(parts, tools, self.floor)
        if len(parts) < 2:
            return written_arithmetic(request, tools) or self.select(request, tools)
        kept = {t.name for part in parts for t in self._kept(part, tools)}
        return [t for t in tools if t.name in kept]

    def _kept(self, part: Part, tools: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        """What a part keeps: the one tool of the ask it names (`Part.tool_of`, as its row is shown), else what
        `select` keeps for it."""
        if part.tool_of is not None:
            return best_tool(part.tool_of, tools)
        return written_arithmetic(part.request, tools) or self.select(part.request, tools)


def written_arithmetic(request: str, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The offered expression tool alone, for a request whose numbers are all in the arithmetic it writes out
    (`chain.written_expressions`, numbers said in words read as digits); [] otherwise. To MiniLM "What is 144 / 12
    + 7?" fits `add` better than the calculator, which `select` then dropped: SmolLM2 added 144 and 7."""
    name = expression_tool(tools)
    if name is None or not written_expressions(in_digits(request)):
        return []
    return [t for t in tools if t.name == name]


def best_tool(part: str, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The tool that fits a part best, for a part that asks one thing: the one tool whose name's words the part says
    all of, else the best by MiniLM (which chose `loan_total_interest` for "What is the monthly payment on a
    $1,250,000 loan ...?", twice on the dev set). On the dev set the best-fitting tool
    of each part was the right one in 56 of 60 parallel_multiple items, where SmolLM2 choosing among the tools
    `select` keeps called trail_grade for "How much climbing is on Fern Gully Loop?"."""
    if len(tools) <= 1:
        return list(tools)
    if written := written_arithmetic(part, tools):
        return written
    said = re.findall(r"[a-z0-9]+", part.lower())
    named = [t for t in tools if _names(t.name.rsplit(".", 1)[-1], said)]
    if len(named) == 1:  # the one tool whose name the part says in full ("monthly payment ... loan")
        return named
    scores = tool_scores(without_quoted(part), tools, "dense")
    return [tools[max(range(len(tools)), key=scores.__getitem__)]]


def _names(name: str, said: list[str]) -> bool:
    """Whether the words of a tool's name (two or more telling ones) are all in `said`, by their stems."""
    words = name_words(name)
    return len(words) >= 2 and all(any(same_stem(w, s) for s in said) for w in words)


def with_request(messages: Sequence[Message], request: str) -> list[Message]:
    """The conversation with its last user message saying `request` instead."""
    last = max(i for i, m in enumerate(messages) if isinstance(m, UserMessage))
    return [*messages[:last], UserMessage(content=request), *messages[last + 1 :]]


def joined(turns: Sequence[AssistantMessage]) -> AssistantMessage:
    """One turn holding the calls of `turns` (the parts' turns) in order: each distinct call once, each id once."""
    calls: list[ToolCall] = []
    seen: set[tuple[str, str]] = set()
    ids: set[str] = set()
    for turn in turns:
        for call in turn.tool_calls:
            key = (call.name, json.dumps(call.args_or_raw(), sort_keys=True, default=str))
            if key in seen:
                continue
            seen.add(key)
            if call.id in ids:
                call = call.model_copy(update={"id": f"call_{len(calls)}"})
            ids.add(call.id)
            calls.append(call)
    raw = "\n".join(t.raw for t in turns if t.raw)
    return AssistantMessage(content=None, tool_calls=calls, raw=raw or None)


# Where one sentence may join asks for different tools: ", and", a bare "and", "as well as", ", plus", ";", ", then",
# ", and also", and a comma before a question word ("the capital of Australia, what is the population of Canada,
# and ..."), each only before a clause that opens as an ask does (`_ASKS`, "if"); and ", and also", and ", and"
# before an article ("I want the anthems of Chile and Peru, and the last frost dates for Cusco and Tallinn": SmolLM2
# made only the frost calls; "the density of ..., and also population of Cusco, Peru in 2005": only the
# density). A question after a condition ("If I give $40 and my employer matches 50%, what is the total?") is
# the condition's.
_TOOL_JOIN = re.compile(
    r"(?:(?:,?\s+and(?:\s+(?:then|also))?|,?\s+as\s+well\s+as|,\s+plus|;|,\s+(?:then|also)"
    r"|,(?=\s+(?:what|how|which|who|where|when)\b))\s+"
    r"(?=(?:if|" + _ASKS.pattern[3:-3] + r")\b)|,\s+and\s+also\s+|,\s+and\s+(?=(?:the|a|an)\s))"
)
# ... and a bare "and" before an article, after a piece that asks ("What's the tire pressure and the oil change
# interval ...?", not "You decide on a problem that involves the LCM and the GCD of two numbers")
_ASKED_JOIN = re.compile(r"\s+and\s+(?=(?:the|a|an)\s)")
_ABOUT_WORD = re.compile(r"\s(?:for|of|on|in|at|about|with)\s", re.I)  # a word that says what an ask is about
_AND_LEAD = re.compile(rf"^(?:And\s+)?(?:{_CONNECTIVE}\b[,:;]?\s*)?|^And\s+", re.I)  # "And then, ...", "And ..."
_CONDITION = re.compile(r"^(?:[A-Z][a-z]+(?:\s+[a-z]+)?,\s+)?if\b", re.I)  # "If I give ...", "After that, if ..."


def by_tools(parts: Sequence[Part], tools: Sequence[ToolSpec], floor: float) -> list[Part]:
    """The parts, each split further where its clauses ask for different tools (`tool_parts`), up to MAX_PARTS in
    all; the parts as they are when a split would go past it. For a first calling turn with several tools
    offered: "Book a flight from Seattle to Boston and book a hotel in Boston for 4 nights." is a flight and a
    hotel, which no connective tells apart from one ask with a list in it."""
    if len(tools) < 2:
        return list(parts)
    out = [split for part in parts for split in ([part] if part.tool_of else tool_parts(part, tools, floor))]
    return out if len(out) <= MAX_PARTS else list(parts)


def _pieces(text: str, tools: Sequence[ToolSpec] = ()) -> list[tuple[int, int, bool]]:
    """Where `text`'s pieces start and end, cut at its sentence ends and its clause joins (`_TOOL_JOIN`; after a
    piece that asks, a bare "and" before an article or a word of a tool's name: "Find coworking spaces in Lisbon and
    cafes in the Alfama district"), and whether a join follows the piece (a clause joined to an ask is one:
    "Monthly payment for $240,000 over 15 years and how much interest ...?")."""
    joined = list(_TOOL_JOIN.finditer(text))
    asked = list(_ASKED_JOIN.finditer(text))  # joins only after a piece that asks
    if words := sorted({w for t in tools for w in name_words(t.name.rsplit(".", 1)[-1]) if len(w) >= 4}):
        named = re.compile(r",?\s+and\s+(?=(?:" + "|".join(map(re.escape, words)) + r")\w*\b)", re.I)
        asked += named.finditer(text)
    joined += [m for m in asked if not any(j.start() <= m.start() < j.end() for j in joined)]
    weak = {m.start() for m in asked}
    cuts = sorted(
        [(m.start(), m.end(), False) for m in SENTENCE_END.finditer(text)]
        + [(m.start(), m.end(), True) for m in joined]
    )
    spans, start = [], 0
    for cut_start, cut_end, joins in cuts:
        if cut_start < start:
            continue
        if joins and _CONDITION.match(text[start:cut_start]) and text[cut_start] == ",":
            continue  # the question of a condition
        if cut_start in weak and not _asks(_AND_LEAD.sub("", text[start:cut_start].strip())):
            continue
        spans.append((start, cut_start, joins))
        start = cut_end
    spans.append((start, len(text), False))
    return [(a, b, joins) for a, b, joins in spans if text[a:b].strip()]


def _shared_about(last: str) -> str | None:
    """What the last ask of a sentence is about, from the word before its first value that says so ("for a Golf
    2021", "in Oslo" of "the price of a hotel room in Oslo"): what a first ask that names nothing is about too
    ("What's the tire pressure and the oil change interval for a Golf 2021?"; alone, the first ask was made up,
    or merged into the second)."""
    last = last.strip().rstrip(".?!")
    value = _GIVES.search(last)
    about = list(_ABOUT_WORD.finditer(last, 0, value.start() + 1)) if value is not None else []
    return last[about[-1].start() + 1 :] if about else None  # from the last such word before its first value


def _needs_result(piece: str) -> bool:
    """Whether a piece works on an earlier piece's result ("convert the result to Fahrenheit", "multiply the total
    by 3", "do the same for Oslo"): a step of a chain, no ask of its own; a question after a condition says what
    its total is ("if I give $40 and my employer matches 50%, what is the total?")."""
    return any(not _PRONOUN.fullmatch(m.group()) for m in _POINTS_BACK.finditer(piece)) and not _CONDITION.match(piece)


_WANTS = re.compile(r"^(?:i|we)(?:'d|\s+would|\s+need|\s+want|\s+wish|\s+also)\b|\bplease\b", re.I)


# A question that only says help is wanted ("Can you help me plan my trip?"), or that questions follow
_PREAMBLE = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?help\s+me\b|i\s+have\s+(?:a\s+few|two|three|some|several)\b)",
    re.I,
)


def _asks(piece: str) -> bool:
    """Whether a piece asks something (a question, an order, "I need ..."), rather than telling what the next ask
    is about ("A 1500 watt device runs for 2 hours. How many kWh is that?", "Can you help me plan my trip?")."""
    if _PREAMBLE.match(piece):
        return False
    return piece.rstrip().endswith("?") or bool(_ASKS.match(piece.lower())) or bool(_WANTS.search(piece))


def tool_parts(part: Part, tools: Sequence[ToolSpec], floor: float) -> list[Part]:
    """A part cut at its sentence ends and its clause joins (`_pieces`) into asks, each with the pieces before it
    that only tell (context), each given the tool that fits it best (`best_tool`) where it fits one at `floor` or
    more (the gate's threshold); asks in a row that want the same tool, or that fit none, stay together: one part
    for each tool asked for, shown that tool. Pieces that tell after the last ask go with it. An ask that leans on
    the one before it for a name ("... of Nikola Tesla and what his most famous discovery was"), or that gives no
    value of its own (`names_nothing`), is shown with what came before it. The part alone when fewer than two
    tools are asked for, or when a piece works on an earlier one's result (a chain's step: `_needs_result`)."""
    text = part.request.strip().strip("\"'").strip()
    spans = _pieces(text, tools)
    pieces = [_AND_LEAD.sub("", text[a:b].strip()) for a, b, _ in spans]
    if len(spans) < 2 or any(_needs_result(p) for p in pieces[1:]) or one_computation(text, pieces):
        return [part]
    units: list[tuple[int, int]] = []  # each ask, from the first piece that tells before it
    told: int | None = None
    context: set[int] = set()  # the units whose first pieces tell what they ask about
    after_join = False  # a piece after a join asks, as the one before it does
    for (a, b, joins), piece in zip(spans, pieces, strict=True):
        if joins or after_join or _asks(piece):
            if told is not None:
                context.add(told)
            units.append((a if told is None else told, b))
            told = None
        elif told is None:
            told = a
        after_join = joins
    if not units:
        return [part]
    units[-1] = (units[-1][0], len(text))
    groups: list[tuple[str | None, int, int]] = []  # (tool, start, end)
    for a, b in units:
        unit = _AND_LEAD.sub("", text[a:b].strip())
        fits = max(tool_scores(without_quoted(unit), tools, "dense")) >= floor
        tool = best_tool(unit, tools)[0].name if fits else None
        if groups and (tool is None or groups[-1][0] in (None, tool)):
            groups[-1] = (groups[-1][0] or tool, groups[-1][1], b)
        else:
            groups.append((tool, a, b))
    if len({tool for tool, _, _ in groups}) < 2:
        return [part]
    end = text[-1] if text[-1] in ".?!" else "."
    out = []
    for k, (_, a, b) in enumerate(groups):
        own = _capital(_AND_LEAD.sub("", text[a:b].strip()).strip())
        alone = a in context or _CONDITION.match(own) or not (leans_back(own) or names_nothing(own))
        shown = own if alone else text[:b].strip()
        if k == 0 and names_nothing(own) and (about := _shared_about(text[groups[-1][1] : groups[-1][2]])):
            shown = f"{own.rstrip('.?!,; ')} {about}"  # "the tire pressure and the oil change interval for a Golf"
        shown = shown if shown[-1] in ".?!" else shown.rstrip(",;") + end
        out.append(Part(_capital(shown), lists_several(own), tool_of=own))
    return out
