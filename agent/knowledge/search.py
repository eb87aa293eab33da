"""A small lexical search over the FAQ and CGV sections: enough for a support agent's grounding.

Scoring is word overlap on folded text with light French stemming; deterministic and dependency-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from filon.agent.text import words

_STOP = frozenset(
    [
        "le",
        "la",
        "les",
        "un",
        "une",
        "des",
        "de",
        "du",
        "d",
        "l",
        "a",
        "au",
        "aux",
        "et",
        "ou",
        "en",
        "est",
        "sont",
        "je",
        "j",
        "ai",
        "mon",
        "ma",
        "mes",
        "vous",
        "votre",
        "vos",
        "nous",
        "il",
        "elle",
        "on",
        "que",
        "qui",
        "quoi",
        "quel",
        "quelle",
        "quels",
        "quelles",
        "pour",
        "par",
        "sur",
        "dans",
        "ce",
        "cette",
        "ces",
        "se",
        "sa",
        "son",
        "ne",
        "pas",
        "plus",
        "y",
        "t",
        "s",
        "c",
        "qu",
        "n",
        "me",
        "m",
        "peux",
        "puis",
        "faire",
        "fait",
        "comment",
        "combien",
    ]
)


@dataclass(frozen=True)
class Passage:
    source: str  # "faq" or "cgv"
    titre: str
    texte: str


_ENDINGS = (
    "ements",
    "ement",
    "ations",
    "ation",
    "aisons",
    "aison",
    "ees",
    "ee",
    "es",
    "er",
    "ez",
    "e",
    "s",
    "x",
)


def _stem(word: str) -> str:
    """A crude French stemmer: plural, then one derivational or verbal ending ("remboursés" ~ "remboursement")."""
    for _ in range(2):
        for suffix in _ENDINGS:
            if len(word) - len(suffix) >= 4 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
    return word


def _terms(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in _STOP and len(w) > 1}


@cache
def passages() -> tuple[Passage, ...]:
    out: list[Passage] = []
    for source in ("faq", "cgv"):
        text = resources.files("filon.agent.knowledge").joinpath(f"{source}.md").read_text(encoding="utf-8")
        title, body = "", list[str]()
        for line in [*text.splitlines(), "## "]:
            if line.startswith("## "):
                if title and body:
                    out.append(Passage(source, title, " ".join(body).strip()))
                title, body = line[3:].strip(), []
            elif line.strip() and not line.startswith("# "):
                body.append(line.strip())
    return tuple(out)


@cache
def _index() -> tuple[tuple[Passage, frozenset[str], frozenset[str]], ...]:
    return tuple((p, frozenset(_terms(p.titre)), frozenset(_terms(p.texte))) for p in passages())


def search(question: str, k: int = 2) -> list[Passage]:
    """The k passages closest to the question (title words count double); empty when nothing matches."""
    query = _terms(question)
    scored = []
    for rank, (passage, title, body) in enumerate(_index()):
        score = 2 * len(query & title) + len(query & body)
        if score:
            scored.append((-score, rank, passage))
    scored.sort()
    return [p for _, _, p in scored[:k]]
