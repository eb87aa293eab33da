"""Neutral mutants: a case's good answer with an adverb put inside it, which another good answer would
write (« ne fait pas encore partie », « est bien arrivée »), to see if the text checks still take it.

The mutants of `goldens.set.mutants` turn a fact wrong and hope the checks notice; these change no fact
and hope the checks do not: a `contient` copied word for word from one answer fails the next good answer
that says it with « encore » or « bien » inside. A rejected neutral mutant is a warning (`filon goldens
lint --mutants`): the check is too literal. Rules, no model: the same set always gives the same ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from filon.goldens.case.schema import Case
from filon.goldens.set.calibration import grade

# where an adverb goes without changing what is said: after a negation's « pas », after a verb
_AFTER_PAS = re.compile(r"\b(ne |n')(\w+) pas (?=\w)", re.IGNORECASE)
_AFTER_VERB = re.compile(r"\b(est|sont|sera|a été|ont été|is|are|has been) (?=\w)", re.IGNORECASE)


def insertions(text: str) -> Iterator[tuple[str, str, int]]:
    """(change, edited answer, where) for each place an adverb fits."""
    for m in _AFTER_PAS.finditer(text):
        yield f"« {m.group()}» + « encore »", f"{text[: m.end()]}encore {text[m.end() :]}", m.start()
    for m in _AFTER_VERB.finditer(text):
        word = "still" if m.group(1).lower() in ("is", "are", "has been") else "bien"
        yield f"« {m.group()}» + « {word} »", f"{text[: m.end()]}{word} {text[m.end() :]}", m.start()


def rejected(case: Case) -> list[tuple[int, int, str]]:
    """The neutral mutants of the case's good examples (those it accepts as they are) that it rejects:
    (example, turn, change)."""
    out: list[tuple[int, int, str]] = []
    for i, example in enumerate(case.exemples):
        if example.verdict != "bon" or grade(case, example):
            continue
        answers = example.answers()
        for turn, text in enumerate(answers):
            for change, edited, _ in insertions(text):
                mutant = example.model_copy(
                    update={
                        "reponse": [*answers[:turn], edited, *answers[turn + 1 :]]
                        if len(answers) > 1
                        else edited
                    }
                )
                if grade(case, mutant):
                    out.append((i, turn, change))
                    break  # one per answer: the reviewer sees which check is too literal
    return out
