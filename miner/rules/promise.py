"""A commercial gesture promised with nothing behind it: the rulebook's `geste_promis`."""

from __future__ import annotations

import re

from filon.miner.core.causes import cause
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.matching import has as _has
from filon.miner.reading.text import fold, formal
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.registry import detector

UNBACKED_PROMISE = cause(
    "unbacked_promise",
    FlagKind.PROMISE,
    Severity.HIGH,
    "a commitment (refund, voucher) nobody will honour without a human",
    rule="geste_promis",
    label="un geste commercial promis sans escalade vers un conseiller",
    label_en="a commercial gesture promised with no escalation to an advisor",
    blocking=True,
)


# a discount code the answer hands out (« avec le code BIENVENUE », « utilisez le code NOEL20 »): a gesture
# whatever the words around it; not one refused (« n'est plus valable », « réservé à… »), nor the customer's
_CODE = re.compile(
    r"\b(?i:avec|utilisez|utilise|saisissez|entrez|voici|profitez|with|use|enter|apply)\b[^.!?\n]{0,30}?"
    r"\b(?i:code)\s+(?i:promo\s+|de\s+r[ée]duction\s+)?«?\s*([A-Z][A-Z0-9]{3,})\b"
)


# refused, said of the code itself: « le code NOEL20 n'est plus valable », « is no longer valid », « je ne
# peux pas appliquer le code NOEL20 »; not a « ne » later in the sentence (« vous ne paierez pas le port »)
_REFUSED_AFTER = re.compile(
    r"^\s*»?\s*,?\s*(?:n'|ne |est (?:expir|r[ée]serv|invalide|plus)|has expired|is (?:no longer|not|only|invalid|expired)"
    r"|isn't|only works|expire)",
    re.IGNORECASE,
)


_REFUSED_BEFORE = re.compile(
    r"(?:ne (?:peux|pouvons) pas|n'accept|can't|cannot|unable to)[^.!?]*$", re.IGNORECASE
)


def _code_given(answer: str, asked: str) -> str | None:
    """The discount code the answer hands out, if it hands one out."""
    if "code" not in answer.lower():  # what `_CODE` needs; most answers give none, split or searched
        return None
    for sentence in re.split(r"[.!?\n]", answer):
        found = _CODE.search(sentence)
        if found is None or found.group(1) in asked:
            continue
        if not (
            _REFUSED_AFTER.search(sentence[found.end() :])
            or _REFUSED_BEFORE.search(sentence[: found.start()])
        ):
            return f"code {found.group(1)}"
    return None


# a gesture refused in its own sentence: « I cannot offer a voucher », « je ne peux pas vous offrir… »
_DENIED = re.compile(
    r"(?:\b(?:cannot|can't|can not|unable to|not able to|won't|will not|do not|don't|not allowed to|"
    r"ne (?:peux|pouvons|puis) pas|pas possible|impossible de|aucun|aucune|pas de)\b)[^.!?\n]*$"
)


def _promised(
    answer: str, patterns: list[str] | tuple[str, ...], unless: re.Pattern[str] | None = None
) -> str | None:
    """A gesture promised in one of the answer's sentences, not refused there (nor, with `unless`, in a
    sentence that pattern finds)."""
    said = formal(fold(answer))
    if _has(said, patterns, said) is None:  # no pattern in the whole answer (most): none in a sentence of it
        return None
    for sentence in re.split(r"(?<=[.!?\n])", said):
        found = _has(sentence, patterns, sentence)
        if found is None or (unless is not None and unless.search(sentence)):
            continue
        at = sentence.find(fold(found))
        if at < 0 or not _DENIED.search(sentence[:at]):
            return found
    return None


# an outcome only the advisor handed the case to decides, said as already decided (« j'ai transmis votre
# dossier : vous serez remboursée des 120 € d'ici quelques jours », « un nouveau pull vous sera renvoyé dès
# lundi »): the hand-over does not back it. Thirteen tables (A-N): 11 escalated answers said one, all
# wrong. Not said as a condition or as the advisor's choice (« si le conseiller valide », « qui décidera »),
# nor the refund a return gets on its reception (the policy, whoever registers the return).
DECIDED = (
    "vous serez rembourse",
    "vous sera rembourse",
    "vous remboursera",
    "vous rembourserons",
    "vous rembourserai",
    "vous sera renvoye",
    "vous sera reexpedie",
    "vous sera expedie",
    "automatiquement rembourse",
    "you will be refunded",
    "you'll be refunded",
    "will refund you",
    "will be resent",
    "will be reshipped",
)
_HEDGED = re.compile(
    r"\b(?:si|s'il|s'ils|une fois|recue?s?|pourr\w*|eventuel\w*|peut-etre|selon|le cas echeant|decid\w*|statu\w*|reception"
    r"|if|may|might|could|whether|decides?|receipt)\b"
)


@detector("promise", rank=80, causes=(UNBACKED_PROMISE,), gate=True)
def promise(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """A commercial gesture promised (and not refused in its sentence) with no escalation, nor a write of
    the agent's own that makes it (a cancellation that refunds), in its turn; or, after a hand-over, the
    outcome the advisor will decide said as decided (`DECIDED`)."""
    out = []
    patterns = cfg.rules.rules["geste_promis"].patterns or cfg.promise_patterns
    for i, t in enumerate(conv.turns):
        pattern = _promised(t.agent, patterns) if t.agent else None
        pattern = pattern or _code_given(t.agent, t.user)
        escalated = any(cfg.escalates(c.name) for c in t.tools)
        wrote = cfg.write_tools is not None and any(
            cfg.writes(c.name) and not cfg.escalates(c.name) for c in t.tools
        )
        if pattern and not (escalated or wrote):
            why = said("flag.promised", pattern=said("flag.quoted", words=pattern))
            out.append(Flag.of(UNBACKED_PROMISE, i, why, t.trace_id))
        elif escalated and not wrote and (decided := _promised(t.agent, DECIDED, unless=_HEDGED)):
            why = said("flag.decided", words=said("flag.quoted", words=decided))
            out.append(Flag.of(UNBACKED_PROMISE, i, why, t.trace_id))
    return out
