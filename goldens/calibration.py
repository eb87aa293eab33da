"""Calibrated cases: each case's checks proven against answers a reviewer has judged.

A check is only as good as the answers it was tried on (the seeds: the golden set itself can be wrong,
and a grader is tested on answers of known verdict before it is trusted). Every example of a case goes
through the same grader as the gate, `evaluer_cas`: a `bon` answer it rejects means the checks are too
strict, a `mauvais` answer it accepts means they are too loose. Pure functions over a `Case`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from agent.knowledge import passages
from goldens.grading import evaluer_cas
from goldens.schema import Case, Example
from miner.text import norm

COPY_WORDS = 8  # a `bon` example sharing this many consecutive words with the policy texts is a quote
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Trial:
    """One example graded against the case: the gaps, and whether the checks agree with the reviewer."""

    index: int
    example: Example
    ecarts: list[str]
    case_criteria: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        return not self.ecarts

    @property
    def agrees(self) -> bool:
        return self.accepted == (self.example.verdict == "bon")

    @property
    def for_the_judge(self) -> bool:
        """A `mauvais` answer the reviewer failed on a criterion the case's judge checks: the deterministic
        checks may accept it, the judge is there to reject it."""
        return self.example.verdict == "mauvais" and bool(judge_failures(self.case_criteria, self.example))


def inputs(case: Case, example: Example) -> tuple[list[str], list[str], bool]:
    """What the grader is given for an example: its tools and escalation, or the case's own."""
    outils = example.outils if example.outils is not None else [g[0] for g in case.expected_tools()]
    escalade = example.escalade if example.escalade is not None else bool(case.escalade)
    return outils, example.answers(), escalade


def grade(case: Case, example: Example, checks: dict[str, Any] | None = None) -> list[str]:
    outils, reponses, escalade = inputs(case, example)
    return evaluer_cas(checks if checks is not None else case.checks(), outils, reponses, escalade)


def trials(case: Case) -> list[Trial]:
    criteria = tuple(case.criteria())
    return [Trial(i, ex, grade(case, ex), criteria) for i, ex in enumerate(case.exemples)]


def label(example: Example, critere: str) -> str:
    """The reviewer's verdict on an example for one criterion: its own, else the overall verdict."""
    return (example.criteres or {}).get(critere, example.verdict)


def judge_failures(criteria: tuple[str, ...], example: Example) -> list[str]:
    return [c for c in criteria if (example.criteres or {}).get(c) == "mauvais"]


def check_columns(case: Case) -> list[tuple[str, dict[str, Any]]]:
    """Each check of the case alone, as a case the grader can read: the columns of `--explain`."""
    cols: list[tuple[str, dict[str, Any]]] = []
    for i, group in enumerate(case.outils):
        cols.append((f"outils[{i}] {_short(group)}", {"outils": [group]}))
    for i, tool in enumerate(case.outils_interdits):
        cols.append((f"outils_interdits[{i}] {tool}", {"outils_interdits": [tool]}))
    if case.escalade is not None:
        cols.append((f"escalade={str(case.escalade).lower()}", {"escalade": case.escalade}))
    for i, group in enumerate(case.contient):
        cols.append((f"contient[{i}] {_short(group)}", {"contient": [group]}))
    for i, text in enumerate(case.ne_contient_pas):
        cols.append((f"ne_contient_pas[{i}] {_short(text)}", {"ne_contient_pas": [text]}))
    return cols


def _short(value: Any, width: int = 28) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True)
class Matrix:
    """Examples × checks: `cells[r][c]` is True where example r passes check c."""

    columns: list[str]
    rows: list[Trial]
    cells: list[list[bool]]


def matrix(case: Case) -> Matrix:
    cols = check_columns(case)
    rows = trials(case)
    cells = [[not grade(case, t.example, checks) for _, checks in cols] for t in rows]
    return Matrix([label for label, _ in cols], rows, cells)


@cache
def _policy_shingles(n: int = COPY_WORDS) -> frozenset[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for passage in passages():
        words = _WORD.findall(norm(passage.texte))
        out.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return frozenset(out)


def copied_policy(text: str, n: int = COPY_WORDS) -> str | None:
    """The first run of `n` consecutive words the text shares with the FAQ or the CGV, if any."""
    words = _WORD.findall(norm(text))
    shingles = _policy_shingles(n)
    for i in range(len(words) - n + 1):
        run = tuple(words[i : i + n])
        if run in shingles:
            return " ".join(run)
    return None


def counting_bons(case: Case) -> tuple[int, list[tuple[int, str]]]:
    """How many `bon` examples count toward the minimum, and which do not (index, copied words)."""
    count, quotes = 0, []
    for i, ex in enumerate(case.exemples):
        if ex.verdict != "bon":
            continue
        copied = next((c for c in map(copied_policy, ex.answers()) if c), None)
        if copied:
            quotes.append((i, copied))
        else:
            count += 1
    return count, quotes
