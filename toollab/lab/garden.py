"""The garden services: a tool catalogue for retrieval experiments. 32 tools, 8 actions x 4 kinds of plant, each
described by its action and two example plants ("Water flowers such as rose and tulip."). Requests come in four
wordings per action (three for training, a fourth held out) about six plants of each kind (four for training, two
held out), so that what a retriever learned can be tried on words it never saw."""

from __future__ import annotations

import random
from dataclasses import dataclass

from toollab.tools import ToolSpec

KINDS: dict[str, tuple[str, ...]] = {  # the first two name the kind in the description; the last two are held out
    "flowers": ("rose", "tulip", "daisy", "lily", "orchid", "peony"),
    "vegetables": ("tomato", "carrot", "lettuce", "potato", "onion", "pepper"),
    "fruit trees": ("apple tree", "pear tree", "cherry tree", "plum tree", "peach tree", "fig tree"),
    "herbs": ("basil", "mint", "thyme", "parsley", "rosemary", "sage"),
}
TRAIN_NOUNS, HELD_OUT_NOUNS = slice(0, 4), slice(4, 6)
# Per action: the description's verb phrase, three training wordings, a held-out fourth, and synonyms that an
# expanded description adds (the words a request may use that the plain description does not).
ACTIONS: dict[str, tuple[str, tuple[str, str, str], str, str]] = {
    "water": ("Water", ("Please water my {}.", "My {} need watering.", "Give the {} some water."),
              "The {} look thirsty and dry.", "irrigate, sprinkle, hydrate; thirsty, dry, parched, wilting"),
    "feed": ("Feed", ("Please feed my {}.", "My {} need fertiliser.", "Give the {} some plant food."),
             "The {} look hungry and pale.", "fertilise, nourish, compost, manure; hungry, pale, yellowing"),
    "harvest": ("Harvest", ("Please harvest my {}.", "My {} are ready to pick.", "Gather the {} for me."),
                "The {} are ripe now.", "pick, gather, collect, reap; ripe, ready"),
    "prune": ("Prune", ("Please prune my {}.", "My {} need trimming.", "Cut back the {} for me."),
              "The {} have grown too bushy.", "trim, cut back, clip, shape; bushy, overgrown, leggy"),
    "plant": ("Plant", ("Please plant some {}.", "I want {} in the bed.", "Put some {} in the ground."),
              "Sow a row of {} this spring.", "sow, put in the ground, bed out, set out; seedlings"),
    "buy": ("Buy", ("Please buy some {}.", "I want to purchase {}.", "Order some {} for me."),
            "Get me a few {} from the shop.", "purchase, order, get from the shop, acquire"),
    "sell": ("Sell", ("Please sell my {}.", "I want to sell the {}.", "Find a buyer for my {}."),
             "Put the {} on the market.", "put on the market, find a buyer, trade away"),
    "price": ("Tell the price of", ("What do {} cost?", "How much are {}?", "Tell me the price of {}."),
              "Are {} expensive these days?", "cost, how much, expensive, cheap, value"),
}  # fmt: skip


def tool_name(action: str, kind: str) -> str:
    return f"{action}_{kind.replace(' ', '_')}"


def catalogue(synonyms: bool = False) -> list[ToolSpec]:
    """The 32 tools; with `synonyms`, each description also lists the words requests use for its action and all
    the plants of its kind (the description is the document a retriever sees)."""
    tools = []
    for action, (verb, _, _, more) in ACTIONS.items():
        for kind, nouns in KINDS.items():
            text = f"{verb} {kind} such as {nouns[0]} and {nouns[1]}."
            if synonyms:
                text += f" Also: {more}. Plants: {', '.join(nouns)}."
            schema = {"type": "object", "properties": {"plant": {"type": "string", "description": "Which plant."}}}
            tools.append(ToolSpec(tool_name(action, kind), text, schema))
    return tools


@dataclass(frozen=True, slots=True)
class Request:
    text: str
    tool: str  # the right tool's name


def requests(n: int, seed: int, nouns: slice, wordings: slice) -> list[Request]:
    """`n` requests drawn (with `seed`) over the actions, kinds, the nouns and the wordings given."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        action = rng.choice(list(ACTIONS))
        kind = rng.choice(list(KINDS))
        _, train, held, _ = ACTIONS[action]
        wording = rng.choice([*train, held][wordings])
        out.append(Request(wording.format(rng.choice(KINDS[kind][nouns])), tool_name(action, kind)))
    return out


TRAIN_WORDINGS, HELD_OUT_WORDING = slice(0, 3), slice(3, 4)


def training_set(n: int = 3000, seed: int = 0) -> list[Request]:
    return requests(n, seed, TRAIN_NOUNS, TRAIN_WORDINGS)


def unseen_nouns(n: int = 400, seed: int = 1) -> list[Request]:
    return requests(n, seed, HELD_OUT_NOUNS, TRAIN_WORDINGS)


def unseen_wording(n: int = 400, seed: int = 2) -> list[Request]:
    return requests(n, seed, TRAIN_NOUNS, HELD_OUT_WORDING)
