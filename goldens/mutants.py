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

from goldens.calibration import grade
from goldens.problems import Problem
from goldens.schema import Case, Example

# a figure on its own: not inside an identifier (« LL-10565 », « 6A10562006FR »); « 3,90 » is one figure,
# and so is a date (« 01/12/2026 », its day moved)
_FIGURE = re.compile(r"(?<![\w/-])\d+(?:[.,]\d+|(?:/\d+)+)?(?![\w/-])")
# verbs a support answer states its facts with, as they appear after a subject
_VERB = re.compile(
    r"\b(est|sont|sera|seront|était|a|ont|avons|avez|peut|peuvent|pouvez|pourrez|pouvons|peux|faut|"
    r"reste|restent|livrons|acceptons|remboursons|prenons|couvre|couvrent|dispose|disposez|arrivera)\b"
)
# « ne … pas » around one word: the denial a mutant drops
_DENIAL = re.compile(r"\b(?:ne |n')(\w+) (?:pas|plus|jamais)\b")
# just before the verb, a pronoun apart at most: already denied (« rien ne vous sera »), or « il y a »
_NEGATED_NEAR = re.compile(r"(?:\bne |\bn'|\by )(?:\w+ )?$")
_DENIED_AFTER = re.compile(r"^ (?:pas|plus|jamais|point)\b")
# the object pronouns a verb carries before it, which the denial goes around (« ne vous sont pas rendus »,
# « ne l'a pas », « n'en est pas »); « vous » and « nous » before their own verb are its subject
_CLITICS = re.compile(
    r"(?<![\w'])((?:(?:vous|nous|le|la|les|lui|leur|me|te|se|en|y) |[lmts]')+)$", re.IGNORECASE
)
_SUBJECT = {
    "vous": frozenset(("avez", "pouvez", "pourrez", "disposez")),
    "nous": frozenset(("avons", "pouvons", "livrons", "acceptons", "remboursons", "prenons")),
}
_QUESTION = re.compile(r"\b(?:quel|quelle|quels|quelles|où|comment|combien|pourquoi) $", re.IGNORECASE)
_VOWEL = tuple("aeiouéèêhâ")
_ELISIONS = (("ce est", "c'est"), ("Ce est", "C'est"), ("je ai", "j'ai"), ("Je ai", "J'ai"))


@dataclass(frozen=True)
class Mutant:
    """One edit of one good example's answer: which example, what kind, the edit, the answers."""

    example: int
    kind: str  # "chiffre", "négation" or "affirmation"
    change: str  # « 30 » → « 31 »
    answers: tuple[str, ...]
    turn: int = 0  # the answer edited
    at: int = 0  # where in it the edit begins


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
    asked = _QUESTION.search(before) is not None or after.startswith("-")  # « quel est », « est-elle »
    if asked or _NEGATED_NEAR.search(before) or _DENIED_AFTER.match(after):
        return None
    if before.endswith(("c'", "C'")):
        old, new = before[-2:] + verb, f"{before[-2]}e n'{verb} pas"
        return f"{before[:-2]}{new}{after}", old, new
    clitics = _CLITICS.search(before)
    held, at = (clitics.group(1), clitics.start(1)) if clitics is not None else ("", start)
    first = held.split(" ", 1)[0]
    if verb in _SUBJECT.get(first.lower(), ()):  # « nous vous remboursons »: « nous » is the subject
        held, at = held[len(first) + 1 :], at + len(first) + 1
    if held:
        particle = "n'" if held.lower().startswith(("en", "y")) else "ne "
        old, new = held + verb, f"{particle}{held}{verb} pas"
        return f"{before[:at]}{new}{after}", old, new
    if before.endswith("'"):
        return None
    particle = "n'" if verb.startswith(_VOWEL) else "ne "
    new = f"{particle}{verb} pas"
    return f"{before}{new}{after}", verb, new


def _affirmed(text: str) -> str:
    for elided, plain in _ELISIONS:
        text = text.replace(elided, plain)
    return text


def edits(text: str) -> Iterator[tuple[str, str, str, int]]:
    """Every one-edit mutant of an answer: (kind, change, mutated text, where the edit begins)."""
    for m in _FIGURE.finditer(text):
        value, bumped = m.group(), _figure(m.group())
        mutated = text[: m.start()] + bumped + text[m.end() :]
        yield "chiffre", f"« {value} » → « {bumped} »", mutated, m.start()
    for m in _VERB.finditer(text):
        denied = _denied(text, m.start(), m.end(), m.group())
        if denied is not None:
            mutated, old, new = denied
            yield "négation", f"« {old} » → « {new} »", mutated, m.start()
    for m in _DENIAL.finditer(text):
        mutated = _affirmed(text[: m.start()] + m.group(1) + text[m.end() :])
        yield "affirmation", f"« {m.group()} » → « {m.group(1)} »", mutated, m.start()


def mutants(case: Case) -> list[Mutant]:
    """The mutants of every `bon` example of the case, one answer edited at a time."""
    out: list[Mutant] = []
    for i, example in enumerate(case.exemples):
        if example.verdict != "bon":
            continue
        answers = example.answers()
        for turn, text in enumerate(answers):
            for kind, change, mutated, at in edits(text):
                edited = (*answers[:turn], mutated, *answers[turn + 1 :])
                out.append(Mutant(i, kind, change, edited, turn, at))
    return out


def accepted(case: Case) -> tuple[list[Mutant], int]:
    """The mutants the case's checks accept, and how many mutants there were."""
    found = mutants(case)
    kept = []
    for mutant in found:
        example = case.exemples[mutant.example]
        reponse: str | list[str] = (
            mutant.answers[0] if isinstance(example.reponse, str) else list(mutant.answers)
        )
        edited = Example(verdict="mauvais", reponse=reponse, outils=example.outils, escalade=example.escalade)
        if not grade(case, edited):
            kept.append(mutant)
    return kept, len(found)


def mutant_problems(name: str, case: Case) -> tuple[list[Problem], int]:
    """A warning per accepted mutant, naming the example and the edit; and how many mutants were tried."""
    kept, tried = accepted(case)
    problems = [
        Problem(
            name,
            f"exemples[{m.example}]",
            f"mutant accepted ({m.kind} {m.change}): {_excerpt(m)}",
            "warning",
        )
        for m in kept
    ]
    return problems, tried


def _excerpt(mutant: Mutant, before: int = 40, after: int = 60) -> str:
    """The edited answer around the edit: « …le colis n'est pas en transit chez Colissimo… »."""
    text = mutant.answers[mutant.turn]
    start, end = max(0, mutant.at - before), mutant.at + after
    return f"{'…' if start else ''}{text[start:end]}{'…' if end < len(text) else ''}"
