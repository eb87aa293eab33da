"""Calibrated cases: each case's checks proven against answers a reviewer has judged.

A check is only as good as the answers it was tried on (the seeds: the golden set itself can be wrong,
and a grader is tested on answers of known verdict before it is trusted). Every example of a case goes
through the same grader as the gate (`goldens.checks.grade`, on the example read as a transcript): a `bon` answer it rejects means the checks are too
strict, a `mauvais` answer it accepts means they are too loose. Pure functions over a `Case`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from filon.agent.knowledge import passages
from filon.goldens.case.schema import Case, Example
from filon.goldens.case.tool_spec import ExampleTool, ToolGroup, TurnChecks, tool_label
from filon.goldens.case.trajectory import named_tools
from filon.goldens.checks import Gap, words_only
from filon.goldens.checks import grade as grade_case
from filon.miner.core.messages import Said
from filon.miner.core.model import ToolCall, Turn
from filon.miner.core.transcript import Transcript
from filon.miner.reading.text import norm
from filon.miner.rules.config import FlagConfig, is_escalation

COPY_WORDS = 8  # a `bon` example sharing this many consecutive words with the policy texts is a quote
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Trial:
    """One example graded against the case: the gaps, and whether the checks agree with the reviewer."""

    index: int
    example: Example
    gaps: list[Said]
    case_criteria: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        return not self.gaps

    @property
    def agrees(self) -> bool:
        return self.accepted == (self.example.verdict == "bon")

    @property
    def for_the_judge(self) -> bool:
        """A `mauvais` answer the reviewer failed on a criterion the case's judge checks: the deterministic
        checks may accept it, the judge is there to reject it."""
        return self.example.verdict == "mauvais" and bool(judge_failures(self.case_criteria, self.example))


def transcript(case: Case, example: Example) -> Transcript:
    """What the grader reads of an example: its answers under the case's turns, its calls (per turn, or
    flat on its last turn), its escalation (given, else its calls', else the case's). An example that
    gives no tools proves the words alone (`words_only`)."""
    answers = example.answers()
    customer = list(case.tours) if len(case.tours) == len(answers) else [""] * len(answers)
    escalation = _escalation(Path.cwd())
    per_turn: list[list[ToolCall]] = [[] for _ in answers]
    if example.per_turn:
        for i, calls in enumerate(example.outils or []):
            if i < len(per_turn) and isinstance(calls, list):
                per_turn[i] = [_call(c) for c in calls]
    elif example.outils:
        per_turn[-1] = [_call(c) for c in example.outils if not isinstance(c, list)]
    turns = [
        Turn.exchange(customer[i], answer, calls, any(is_escalation(c.name, escalation) for c in calls))
        for i, (answer, calls) in enumerate(zip(answers, per_turn, strict=True))
    ]
    wanted = example.escalade
    if wanted is None and example.outils is None:
        wanted = bool(case.escalade)
    if wanted is not None and wanted != any(t.escalated for t in turns):
        turns = [replace(t, escalated=wanted and i == len(turns) - 1) for i, t in enumerate(turns)]
    return Transcript(turns=turns, from_spans=False, per_turn=example.per_turn or len(answers) == 1)


def as_example(transcript: Transcript) -> dict[str, Any]:
    """An attempt's transcript as an example's fields: answers, calls per turn with their arguments
    (and failures), the escalation. The TUI's try keeps an answer this way."""
    turns = [
        [
            {
                "outil": c.name,
                **({"args": c.args} if c.args is not None else {}),
                **({"erreur": c.error} if c.error else {}),
            }
            for c in t.tools
        ]
        for t in transcript.turns
    ]
    return {"reponse": transcript.answers, "outils": turns, "escalade": transcript.escalated}


def calls_line(example: Example) -> str:
    """An example's calls on one line, for `--explain`: per turn when it gives them so (« t1 - | t2
    consulter_commande(numero=LL-10580) »), « (the case's) » when it gives none: the calls the case's
    checks expect."""
    if example.outils is None:
        return "(the case's)"

    def one(tool: ExampleTool) -> str:
        if isinstance(tool, str):
            return tool
        args = ",".join(f"{k}={v}" for k, v in (tool.args or {}).items())
        return f"{tool.outil}({args})" + ("!" if tool.erreur else "")

    if example.per_turn:
        turns = [t for t in example.outils if isinstance(t, list)]
        return " | ".join(f"t{i} " + (" ".join(one(c) for c in t) or "-") for i, t in enumerate(turns, 1))
    return " ".join(one(t) for t in example.outils if not isinstance(t, list)) or "-"


@cache
def _escalation(folder: Path) -> tuple[str, ...]:
    """The agent's ways to a human, read once per folder the configuration comes from."""
    return tuple(FlagConfig.load().escalation_tools)


def _call(tool: ExampleTool) -> ToolCall:
    if isinstance(tool, str):
        return ToolCall.named(tool)
    return ToolCall.named(tool.outil, tool.args, tool.resultat, tool.erreur)


def gaps(
    case: Case, example: Example, seen: Callable[[Case, Transcript], Transcript] | None = None
) -> list[Gap]:
    """The example's gaps; with `seen` (the rules' replay of the reference agent's tools), the checks
    that ask whether a call succeeded (`si_reussi`) read the result the example's calls would have had."""
    keep = words_only if example.outils is None else None
    read = transcript(case, example)
    if seen is not None and _asks_success(case):
        read = seen(case, read)
    return grade_case(case, read, keep=keep)


def _asks_success(case: Case) -> bool:
    """Whether any check of the case, at any level, counts only a call that succeeded."""
    return any(getattr(tool, "si_reussi", False) for _, tool in named_tools(case))


def grade(case: Case, example: Example) -> list[Said]:
    """The example's gaps as the report words them (`str()` for its French); empty: the case's checks
    accept it."""
    return [g.said for g in gaps(case, example)]


def trials(case: Case) -> list[Trial]:
    criteria = tuple(case.criteria())
    return [Trial(i, ex, grade(case, ex), criteria) for i, ex in enumerate(case.exemples)]


def label(example: Example, critere: str) -> str:
    """The reviewer's verdict on an example for one criterion: its own, else the overall verdict."""
    return (example.criteres or {}).get(critere, example.verdict)


def judge_failures(criteria: tuple[str, ...], example: Example) -> list[str]:
    return [c for c in criteria if (example.criteres or {}).get(c) == "mauvais"]


def check_columns(case: Case) -> list[tuple[str, Case]]:
    """Each check of the case alone, as a case the grader can read: the columns of `--explain`."""
    cols: list[tuple[str, Case]] = []
    for i, group in enumerate(case.outils):
        cols.append((f"outils[{i}] {_short(_labels(group))}", case.only(outils=[group])))
    for i, tool in enumerate(case.outils_interdits):
        cols.append((f"outils_interdits[{i}] {_short(tool_label(tool))}", case.only(outils_interdits=[tool])))
    if case.escalade is not None:
        cols.append((f"escalade={str(case.escalade).lower()}", case.only(escalade=case.escalade)))
    if case.ordre:
        name = "ordre_exact" if case.ordre_exact else "ordre"
        cols.append(
            (
                f"{name} {_short(_labels(list(case.ordre)))}",
                case.only(ordre=case.ordre, ordre_exact=case.ordre_exact),
            )
        )
    for i, block in enumerate(case.par_tour):
        if block.has_action_check() or block.has_text_check():
            blocks = [TurnChecks() for _ in case.par_tour]
            blocks[i] = block
            cols.append((f"par_tour[{i}]", case.only(par_tour=blocks)))
    for i, texts in enumerate(case.contient):
        cols.append((f"contient[{i}] {_short(texts)}", case.only(contient=[texts])))
    for i, text in enumerate(case.ne_contient_pas):
        cols.append((f"ne_contient_pas[{i}] {_short(text)}", case.only(ne_contient_pas=[text])))
    return cols


def _labels(group: ToolGroup) -> str | list[str]:
    return [tool_label(t) for t in group] if isinstance(group, list) else tool_label(group)


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
    cells = [[not grade(alone, t.example) for _, alone in cols] for t in rows]
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
