"""The facts an answer states, read in its language: `miner.reading.facts_fr` for French answers,
`miner.reading.facts_en` for English ones, side by side, each importing only the shared core. Both give
the same kinds and values (a duration's unit as `jour`, a status as its French key), so that one
`miner.reading.grounding` looks them up in what the agent saw, whatever the language; and a status a tool
returns in English (« shipped ») is the same status (`STATUSES`)."""

from __future__ import annotations

from datetime import date

from filon.miner.reading import facts_en, facts_fr
from filon.miner.reading.facts_fr import Fact, day_of, named, placed, unique
from filon.miner.reading.text import comparable

STATUSES = {
    k: v + tuple(w for w, key in facts_en.STATUS_WORDS.items() if key == k)
    for k, v in facts_fr.STATUSES.items()
}

__all__ = ["STATUSES", "Fact", "facts"]


def facts(answer: str, today: date, lang: str = "fr") -> list[Fact]:
    """The facts an answer states, each once, in the order of the answer; `lang` "en" reads an English
    one."""
    if lang == "en":
        plain = comparable(answer, "en")
        english = [placed(plain, *f) for f in facts_en.facts(plain, today, day_of)]
        return unique([*english, *named(plain, answer)])
    return facts_fr.facts(answer, today)
