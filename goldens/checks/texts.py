"""Words, last: each `contient` group is satisfied by any one of its variants, and no `ne_contient_pas`
entry may appear.

Text is compared without case or accents, with typographic apostrophes and non-breaking spaces folded
(`norm`), and also with French numbers written in words read as digits (`comparable`): a text check holds
if either reading holds. A model that writes « trois euros quatre-vingt-dix » or « soixante euros » says
what « 3 euros 90 » and « 60 euros » say, a `ne_contient_pas` of « 1 an » catches « un an », and nothing
the plain reading matched is lost to the number reading (text2num leaves « d'un » alone where a check
« un avoir » would read « 1 avoir »). An answer in English has its English number words read
(« five to eight business days » holds a check « 8 days »), its language told by `miner.language`.
"""

from __future__ import annotations

from functools import lru_cache

from goldens.case.schema import Case
from goldens.checks.base import Cost, Gap
from miner.language import language
from miner.text import comparable, norm
from miner.transcript import Transcript


@lru_cache(maxsize=4096)
def folded(needle: str) -> str:
    """A check's own text, folded once: the same checks are read on every answer."""
    return norm(needle)


def found(needle: str, plain: str, numbers: str, lang: str = "fr") -> bool:
    return folded(needle) in plain or comparable(needle, lang) in numbers


def text_gaps(
    said: str,
    contient: list[str | list[str]],
    ne_contient_pas: list[str],
    prefix: str = "",
    turn: int | None = None,
) -> list[Gap]:
    lang = language([said])
    plain, numbers = norm(said), comparable(said, lang)
    out: list[Gap] = []
    for i, group in enumerate(contient):
        variants = group if isinstance(group, list) else [group]
        if not any(found(v, plain, numbers, lang) for v in variants):
            message = "texte manquant : " + " ou ".join(f"« {v} »" for v in variants)
            out.append(Gap("texte_manquant", f"{prefix}contient[{i}]", message, turn))
    for i, text in enumerate(ne_contient_pas):
        if found(text, plain, numbers, lang):
            out.append(
                Gap(
                    "texte_interdit",
                    f"{prefix}ne_contient_pas[{i}]",
                    f"texte interdit présent : « {text} »",
                    turn,
                )
            )
    return out


class Texts:
    """The case's `contient` and `ne_contient_pas`, over every answer of the conversation."""

    name = "textes"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return bool(case.contient or case.ne_contient_pas)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        return text_gaps(" ".join(transcript.answers), case.contient, case.ne_contient_pas)
