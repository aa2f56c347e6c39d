"""What the simulated model knows without tools, and how it slips: all draws keyed, so runs are reproducible."""

from __future__ import annotations

from toollab.lab.countries.data import BY_CAPITAL, COUNTRIES, Country, country
from toollab.lab.countries.tools import unit_draw
from toollab.lab.simulated.knobs import Knobs


class Memory:
    """Facts recalled with a probability falling with a country's popularity rank; a wrong recollection is a
    plausible value (another country's fact, a population off by 10-50%). The same question always gets the same
    recollection for a given seed, so asking again (self-critique without tools) does not fix it."""

    def __init__(self, knobs: Knobs, seed: int):
        self.knobs = knobs
        self.seed = seed

    def draw(self, *key: object) -> float:
        return unit_draw("sim", self.seed, *key)

    def recall_probability(self, c: Country) -> float:
        k = self.knobs
        return k.recall_best - (c.rank - 1) / (len(COUNTRIES) - 1) * (k.recall_best - k.recall_worst)

    def knows(self, c: Country, relation: str, *salt: object) -> bool:
        return self.draw("recall", c.name, relation, *salt) < self.recall_probability(c)

    def fact(self, name: str, relation: str, *salt: object) -> str:
        """The value it believes `relation` of country `name` has (a population in thousands, as text)."""
        c = country(name)
        if c is None:
            return "unknown"
        truth = str(c.population) if relation == "population" else c.fact(relation)
        if self.knows(c, relation, *salt):
            return truth
        u = self.draw("wrong", c.name, relation, *salt)
        if relation == "population":
            factor = 0.5 + 0.4 * u if u < 0.5 else 1.1 + 0.4 * u  # 10% to 50% off, never exact
            return str(round(c.population * factor))
        others = sorted({x.fact(relation) for x in COUNTRIES} - {truth})
        return others[int(u * len(others))]

    def country_of_capital(self, capital: str, *salt: object) -> str:
        c = BY_CAPITAL.get(capital.strip().lower())
        if c is None:
            return "unknown"
        if self.knows(c, "capital", "reverse", *salt):
            return c.name
        others = [x.name for x in COUNTRIES if x is not c]
        return others[int(self.draw("wrong-capital", c.name, *salt) * len(others))]

    def estimate_population(self, name: str) -> int:
        """A rough figure: close for a country it remembers, a wide guess for one it does not."""
        c = country(name)
        if c is None:
            return 0
        spread = self.knobs.estimate_known if self.knows(c, "population") else self.knobs.estimate_unknown
        return round(c.population * (1 + spread * (2 * self.draw("estimate", c.name) - 1)))

    def arithmetic(self, exact: int, *key: object) -> int:
        """Mental arithmetic: right, or off by a digit slip at rate `arithmetic_error`."""
        if self.draw("arith", *key) >= self.knobs.arithmetic_error:
            return exact
        u = self.draw("slip", *key)
        magnitude = 10 ** int(u * 4)  # a slip in the units, tens, hundreds or thousands
        return exact + (1 if u * 8 % 2 < 1 else -1) * magnitude * (1 + int(u * 40) % 9)
