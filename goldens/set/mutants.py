"""Mutants of a case's good answers: the same answer with one fact turned wrong, to see if the checks notice.

A `contient` of « en transit » is met by « le colis n'est pas en transit »; a check that names no figure
passes « le délai de retour est de 31 jours ». Examples show what a case's checks do on the answers a
reviewer thought of; mutants show what they do on the answer next to a good one: a figure moved by one
(« 30 jours » → « 31 jours »), a statement denied (« est en transit » → « n'est pas en transit »), a denial
dropped (« ne peut pas être retourné » → « peut être retourné »). Each is one edit, made by rules, with
no model, so the same set always gives the same mutants.

A mutant is presumed wrong, not judged: denying a polite aside (« si vous avez une question ») changes no
fact. So an accepted mutant is a warning for the reviewer (`filon goldens lint --mutants`), who either
adds what rejects it (a `ne_contient_pas` of the denial, the figure in `contient`) with the mutant as a
`mauvais` example, or leaves it. Pure functions over a `Case`: the grader is the gate's (`grade`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from filon.goldens.case.problems import Problem
from filon.goldens.case.schema import Case, Example
from filon.goldens.set.calibration import calls_line, grade
from filon.goldens.set.mutants_neutral import rejected
from filon.goldens.set.mutants_trajectory import call_edits
from filon.miner.core.messages import said

# a figure on its own: not inside an identifier (« LL-10565 », « 6A10562006FR »); « 3,90 » is one figure,
# and so is a date (« 01/12/2026 », its day moved)
_FIGURE = re.compile(r"(?<![\w/-])\d+(?:[.,]\d+|(?:/\d+)+)?(?![\w/-])")
# verbs a support answer states its facts with, as they appear after a subject
_VERB = re.compile(
    r"\b(est|sont|sera|seront|était|a|ont|avons|avez|peut|peuvent|pouvez|pourrez|pouvons|peux|faut|"
    r"reste|restent|livrons|acceptons|remboursons|prenons|couvre|couvrent|dispose|disposez|arrivera)\b"
)
_PRONOUNS = r"(?:(?:vous|nous|le|la|les|lui|leur|me|te|se|en|y) |[lmts]')"
# « ne … pas » around a verb and its pronouns: the denial a mutant drops (« n'hésitez pas » says no fact)
_DENIAL = re.compile(rf"\b(ne |n')({_PRONOUNS}*)(?!hésit)(\w+) (?:pas|plus|jamais)\b", re.IGNORECASE)
# just before the verb, a pronoun apart at most: already denied (« rien ne vous sera »), or « il y a »
_NEGATED_NEAR = re.compile(r"(?:\bne |\bn'|\by )(?:\w+ )?$")
_DENIED_AFTER = re.compile(r"^ (?:pas|plus|jamais|point)\b")
# the object pronouns a verb carries before it, which the denial goes around (« ne vous sont pas rendus »,
# « ne l'a pas », « n'en est pas »); « vous » and « nous » before their own verb are its subject
_CLITICS = re.compile(rf"(?<![\w'])({_PRONOUNS}+)$", re.IGNORECASE)
# what stands before « le », « la », « les » when they are pronouns (« il les a »), not articles (« le reste »)
_SUBJECT_BEFORE = re.compile(r"(?:\b(?:je|tu|il|elle|on|nous|vous|ils|elles|ce|qui|ne) |\b[jcn]')$", re.I)
_SUBJECT = {
    "vous": frozenset(("avez", "pouvez", "pourrez", "disposez")),
    "nous": frozenset(("avons", "pouvons", "livrons", "acceptons", "remboursons", "prenons")),
}
_QUESTION = re.compile(
    r"(?:\b(?:quel|quelle|quels|quelles|où|comment|combien|pourquoi|quand) |est-ce qu(?:e |')[^.?!]*)$",
    re.IGNORECASE,
)
_VOWEL = tuple("aeiouéèêhâ")
_ELIDED = re.compile(r"\b(je|ce|que|me|te|se|le|la|de) $", re.IGNORECASE)  # « je » + « ai » → « j'ai »


@dataclass(frozen=True)
class Mutant:
    """One edit of one good example's answer: which example, what kind, the edit, the answers."""

    example: int
    kind: str  # "chiffre", "négation", "affirmation"; of the calls: "argument", "ordre", "appel", "tour"
    change: str  # « 30 » → « 31 »
    answers: tuple[str, ...]
    turn: int = 0  # the answer edited
    at: int = 0  # where in it the edit begins
    calls: list[Any] | None = (
        None  # a trajectory mutant: the example's calls, edited (its answers as they are)
    )


def _figure(value: str) -> str:
    """The figure one up: « 30 » → « 31 », « 3,90 » → « 4,90 », « 09 » → « 10 », « 01/12/2026 » →
    « 02/12/2026 »."""
    whole = re.match(r"\d+", value)
    assert whole is not None  # `_FIGURE` begins with digits
    digits = whole.group()
    return str(int(digits) + 1).rjust(len(digits), "0") + value[len(digits) :]


def _denied(text: str, start: int, end: int, verb: str) -> tuple[str, str, str] | None:
    """`text` with the verb at [start, end) denied, with what was replaced and by what (« est » →
    « n'est pas », « c'est » → « ce n'est pas », « vous sont » → « ne vous sont pas »); None where it
    is denied already, asked (« quel est »), elided (« j'ai ») or in « il y a »."""
    before, after = text[:start], text[end:]
    if _NEGATED_NEAR.search(before) or _DENIED_AFTER.match(after) or after.startswith("-"):
        return None  # denied already, or asked by inversion (« est-elle »)
    if before.endswith(("c'", "C'")):
        old, new = before[-2:] + verb, f"{before[-2]}e n'{verb} pas"
        return f"{before[:-2]}{new}{after}", old, new
    clitics = _CLITICS.search(before)
    held, at = (clitics.group(1), clitics.start(1)) if clitics is not None else ("", start)
    first = held.split(" ", 1)[0]
    if verb in _SUBJECT.get(first.lower(), ()):  # « nous vous remboursons »: « nous » is the subject
        held, at = held[len(first) + 1 :], at + len(first) + 1
    if _QUESTION.search(before[:at]):  # « quel est », « où en est », « quand est-ce qu'elle arrivera »
        return None
    if first.lower() in ("le", "la", "les") and held and not _SUBJECT_BEFORE.search(before[:at]):
        return None  # an article: « le reste est offert » has no verb « reste » here
    if held:
        particle = "n'" if held.lower().startswith(("en", "y")) else "ne "
        old, new = held + verb, f"{particle}{held}{verb} pas"
        return f"{before[:at]}{new}{after}", old, new
    if before.endswith("'"):
        return None
    particle = "n'" if verb.startswith(_VOWEL) else "ne "
    new = f"{particle}{verb} pas"
    return f"{before}{new}{after}", verb, new


def _affirmed(text: str, m: re.Match[str]) -> tuple[str, str]:
    """`text` without the denial `m` (« n'est pas » → « est », « ne vous sont pas » → « vous sont »),
    elided again where French elides (« je n'ai pas » → « j'ai »); and what replaced it."""
    plain = m.group(2) + m.group(3)
    if m.group(1)[0].isupper():
        plain = plain[0].upper() + plain[1:]
    before = text[: m.start()]
    elided = _ELIDED.search(before)
    if elided is not None and plain.lower().startswith(_VOWEL):
        before = before[: elided.end(1) - 1] + "'"
    return before + plain + text[m.end() :], plain


def _listed(text: str, m: re.Match[str]) -> bool:
    """A list's numbering (« 1. », « 2) » at the start of a line): no fact."""
    line = text[: m.start()].rsplit("\n", 1)[-1]
    return not line.strip() and text[m.end() : m.end() + 1] in (".", ")")


def edits(text: str) -> Iterator[tuple[str, str, str, int]]:
    """Every one-edit mutant of an answer: (kind, change, mutated text, where the edit begins). A figure
    is moved everywhere the answer gives it (a wrong fact, said consistently); typographic apostrophes
    are read as straight ones, as the grader reads them."""
    text = text.replace("’", "'")
    figures: dict[str, list[re.Match[str]]] = {}
    for m in _FIGURE.finditer(text):
        if not _listed(text, m):
            figures.setdefault(m.group(), []).append(m)
    for value, found in figures.items():
        bumped, mutated = _figure(value), text
        for m in reversed(found):
            mutated = mutated[: m.start()] + bumped + mutated[m.end() :]
        yield "chiffre", f"« {value} » → « {bumped} »", mutated, found[0].start()
    for m in _VERB.finditer(text):
        denied = _denied(text, m.start(), m.end(), m.group())
        if denied is not None:
            mutated, old, new = denied
            yield "négation", f"« {old} » → « {new} »", mutated, m.start()
    for m in _DENIAL.finditer(text):
        mutated, plain = _affirmed(text, m)
        yield "affirmation", f"« {m.group()} » → « {plain} »", mutated, m.start()


def mutants(case: Case) -> list[Mutant]:
    """The mutants of every `bon` example the case's checks accept, one answer edited at a time (an
    example they reject is lint's error already: its mutants would count as rejected for nothing)."""
    out: list[Mutant] = []
    for i, example in enumerate(case.exemples):
        if example.verdict != "bon" or grade(case, example):
            continue
        answers = example.answers()
        for turn, text in enumerate(answers):
            for kind, change, mutated, at in edits(text):
                edited = (*answers[:turn], mutated, *answers[turn + 1 :])
                out.append(Mutant(i, kind, change, edited, turn, at))
        for kind, change, calls in call_edits(example):
            out.append(Mutant(i, kind, change, tuple(answers), calls=calls))
    return out


def accepted(case: Case) -> tuple[list[Mutant], int]:
    """The mutants the case's checks accept, and how many mutants there were."""
    found = mutants(case)
    kept = []
    for mutant in found:
        example = case.exemples[mutant.example]
        edited = example.model_validate(
            {**example.model_dump(exclude_none=True), "reponse": list(mutant.answers), "outils": mutant.calls}
            if mutant.calls is not None
            else {**example.model_dump(exclude_none=True), "reponse": list(mutant.answers)}
        )
        if not grade(case, edited):
            kept.append(mutant)
    return kept, len(found)


def mutant_problems(name: str, case: Case) -> tuple[list[Problem], int]:
    """A warning per accepted mutant, naming the example and the edit; and how many mutants were tried."""
    kept, tried = accepted(case)
    problems = [
        Problem.of(
            name,
            _field(case, m),
            said("lint.mutant_accepted", kind=m.kind, change=m.change, excerpt=_excerpt(m)),
            "warning",
        )
        for m in kept
    ]
    for example, turn, change in rejected(case):  # a good answer with an adverb inside: still good
        field = f"exemples[{example}]" + (
            "" if isinstance(case.exemples[example].reponse, str) else f".reponse[{turn}]"
        )
        problems.append(
            Problem.of(name, field, said("lint.neutral_mutant_rejected", change=change), "warning")
        )
    return problems, tried


def _field(case: Case, mutant: Mutant) -> str:
    """`exemples[2]`, or `exemples[2].reponse[1]` for the second turn of an answer given per turn."""
    if mutant.calls is not None:
        return f"exemples[{mutant.example}].outils"
    one = isinstance(case.exemples[mutant.example].reponse, str)
    return f"exemples[{mutant.example}]" + ("" if one else f".reponse[{mutant.turn}]")


def _excerpt(mutant: Mutant, before: int = 40, after: int = 60) -> str:
    """The edited answer around the edit, on one line: « …le colis n'est pas en transit chez… »; the
    edited calls, for a mutant of the trajectory."""
    if mutant.calls is not None:
        return calls_line(Example(verdict="bon", reponse=list(mutant.answers), outils=mutant.calls))
    text = mutant.answers[mutant.turn]
    start, end = max(0, mutant.at - before), mutant.at + after
    shown = text[start:end].replace("\n", " ⏎ ")
    return f"{'…' if start else ''}{shown}{'…' if end < len(text) else ''}"
