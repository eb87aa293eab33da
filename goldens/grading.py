"""The grader: a pure function with the seeds' signature. Deterministic checks, no LLM judge.

Actions first (tools expected, tools forbidden, escalation), then text: each `contient` group is
satisfied by any one of its variants, and no `ne_contient_pas` entry may appear. Text is compared
without case or accents, with typographic apostrophes and non-breaking spaces folded (`norm`), and also
with French numbers written in words read as digits (`comparable`): a text check holds if either reading
holds. A model that writes « trois euros quatre-vingt-dix » or « soixante euros » says what « 3 euros 90 »
and « 60 euros » say, a `ne_contient_pas` of « 1 an » catches « un an », and nothing the plain reading
matched is lost to the number reading (text2num leaves « d'un » alone where a check « un avoir » would
read « 1 avoir »).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from text_to_num import alpha2digit

from miner.text import norm

__all__ = ["comparable", "evaluer_cas", "norm"]


@lru_cache(maxsize=4096)
def comparable(text: str) -> str:
    """`norm` of the text with every French number written in words as digits (« vingt-quatre mois » →
    « 24 mois », « un an » → « 1 an », « première » → « 1ère »), by text2num, read before accents are
    folded and with elisions split (« d'un an » → « d' 1 an »); the same on a check's text and on the
    answer's, so both meet in one spelling."""
    spaced = text.lower().replace("’", "'").replace("'", "' ")
    return norm(str(alpha2digit(spaced, "fr", threshold=0)))


def _found(needle: str, plain: str, numbers: str) -> bool:
    return norm(needle) in plain or comparable(needle) in numbers


def _groups(value: Any) -> list[list[str]]:
    return [g if isinstance(g, list) else [g] for g in value or []]


def evaluer_cas(cas: dict[str, Any], outils: list[str], reponses: list[str], escaladee: bool) -> list[str]:
    """The gaps between what the case expects and what the agent did; an empty list means it passed."""
    ecarts: list[str] = []
    called = set(outils)
    for options in _groups(cas.get("outils")):
        if not called.intersection(options):
            ecarts.append(f"outil manquant : {' ou '.join(options)}")
    for interdit in cas.get("outils_interdits") or []:
        if interdit in called:
            ecarts.append(f"outil interdit appelé : {interdit}")
    attendue = cas.get("escalade")
    if attendue is not None and bool(attendue) != bool(escaladee):
        ecarts.append(f"escalade attendue={attendue} obtenue={bool(escaladee)}")
    said = " ".join(reponses)
    plain, numbers = norm(said), comparable(said)
    for variantes in _groups(cas.get("contient")):
        if not any(_found(v, plain, numbers) for v in variantes):
            ecarts.append("texte manquant : " + " ou ".join(f"« {v} »" for v in variantes))
    for interdit_txt in cas.get("ne_contient_pas") or []:
        if _found(interdit_txt, plain, numbers):
            ecarts.append(f"texte interdit présent : « {interdit_txt} »")
    return ecarts
