"""Actions an answer claims, and whether a call did them: the rulebook's `action_affirmee`.

An action claimed (« j'ai enregistré votre retour », « je vous transfère », « j'ai modifié l'adresse »)
must be done by a call of the conversation up to that turn that succeeded: a refused return is not a
registered one, and an offer or a condition (« si vous le souhaitez, je vous mets en relation ») is not a
claim. Pure functions over plain data; no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any

from filon.miner.core.results import failed_result
from filon.miner.reading.folded import folded
from filon.miner.reading.matching import any_of
from filon.miner.reading.text import formal, norm

LOOKUP_TOOLS = ("consulter_commande", "suivre_colis", "rechercher_aide", "*lookup*", "*track*", "*search*")
ORDER_TOOLS = (
    "consulter_commande",
    "suivre_colis",
    "*order*",
    "*commande*",
    "*track*",
    "*colis*",
    "*parcel*",
)


def looks_up_an_order(name: str) -> bool:
    return _matches(name, ORDER_TOOLS)


CHANGE_TOOLS = ("*modif*", "*change*", "*update*", "*cancel*", "*annul*", "*rembours*", "*refund*")
# what the answer says it did or is doing, and which calls would have done it ("escalation": the agent's
# way to a human, "action": any call that is not a lookup)
CLAIMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "escalation",
        (
            "je transfere",
            "je vous transfere",
            "j'ai transfere",
            "je transmets votre",
            "j'ai transmis votre",
            "je vous mets en relation",
            "je vous passe un conseiller",
            # English
            "i've transferred",
            "i have transferred",
            "i'm transferring you",
            "i am transferring you",
            "i'm connecting you",
            "i am connecting you",
            "i've escalated",
            "i have escalated",
            "i've passed your request",
        ),
    ),
    (
        "change",
        (
            "j'ai modifie",
            "je modifie",
            "je vais modifier",
            "je fais la modification",
            "je m'occupe de la modification",
            "je change moi-meme",
            "je vais changer",
            "j'ai change l'adresse",
            "j'ai annule",
            "j'annule",
            "je vais annuler",
            "j'ai rembourse",
            "je procede au remboursement",
            "je lance le remboursement",
            "j'ai procede au remboursement",
            # English
            "i've updated",
            "i have updated",
            "i've changed",
            "i have changed",
            "i've cancelled",
            "i have cancelled",
            "i've canceled",
            "i have canceled",
            "i've refunded",
            "i have refunded",
            "i've issued a refund",
            "i've processed your refund",
            "i'm processing your refund",
        ),
    ),
    (
        "action",
        (
            "j'ai enregistre",
            # forwarded somewhere: a transfer or a return registered does it (« j'ai transmis la demande
            # de retour » after the return's call), none at all does not
            "j'ai transmis",
            "je l'ai transmis",
            "je les ai transmis",
            "je la transmets",
            "je le transmets",
            "je les transmets",
            "nous avons transmis",
            "je viens de transmettre",
            "j'ai bien enregistre",
            "c'est enregistre",
            "est enregistre",
            "est bien enregistre",
            "a ete enregistre",
            "a bien ete enregistre",
            "j'enregistre votre",
            "j'ai lance",
            "c'est fait",
            "j'ai ouvert une enquete",
            "j'ai ouvert un dossier",
            "j'ai ouvert une reclamation",
            "j'ouvre une enquete",
            "je lance une enquete",
            "j'ai signale le retard",
            "j'ai signale le probleme",
            "j'ai signale la perte",
            "j'ai signale votre",
            "j'ai signale cette",
            "j'ai signale ce ",
            "j'ai ouvert un ticket",
            "j'ai cree un ticket",
            "je vous ai envoye un e-mail",
            "je vous ai envoye un mail",
            "je vous ai envoye un sms",
            "je vous ai envoye un code",
            "je vous ai envoye par",
            "vient de vous etre envoye",
            "j'ai contacte le transporteur",
            "j'ai contacte le service",
            "j'ai contacte l'equipe",
            "j'ai contacte colissimo",
            "j'ai contacte chronopost",
            "j'ai fait le necessaire",
            "j'ai demande au transporteur",
            # English
            "i've registered",
            "i have registered",
            "has been registered",
            "i've logged your",
            "i've opened a claim",
            "i've opened an investigation",
            "i have opened an investigation",
            "i've filed",
            "i have filed",
            "i've submitted your",
            "i've created a return",
            "i've initiated",
            "i've contacted the carrier",
            "i have contacted the carrier",
            "i've reported",
            "i have reported",
            "i've sent you a",
            "i have sent you a",
        ),
    ),
)


# one search per kind finds whether any of its phrases is in the answer at all (most answers claim
# nothing): only then are the sentences read phrase by phrase
# whether an answer says any phrase of a kind: one search of their trie each (`matching.any_of`; a third of
# the plain alternation's CPU time on the agent's answers, by profile)
_ANY = tuple(any_of(phrases) for _, phrases in CLAIMS)
_SENTENCE = folded(r"[.!?\n;]")
# a refusal is no condition: « je ne peux pas vous le dire, mais je transmets votre demande » claims it
_REFUSAL = folded(
    r"\b(?:ne|n') ?(?:peux|pouvons|pourrai|pourrons) (?:pas|plus)\b|\b(?:can't|cannot|can not|won't be able|unable)\b"
)
# an offer or a condition, not a claim: « en cas de défaut, je vous mets en relation », « si vous voulez »,
# « if you'd like, I'll… »; English modals only before the claim (« I've cancelled it and you can expect… »
# claims the cancellation)
_CONDITIONAL = folded(
    r"\b(?:si|s'il|en cas|souhaitez|voulez|voulez-vous|pouvez|peux|pourrai|lorsque|quand|des que)\b"
    r"|\b(?:if|would you|do you want|shall)\b"
)
_BEFORE = folded(r"\b(?:can|could|should|when|once|whenever)\b")


def _stated(sentence: str, phrase: str) -> bool:
    """Whether the sentence states the phrase as done, not as an offer or under a condition."""
    at = sentence.find(phrase)
    if at < 0:
        return False
    plain = _REFUSAL.sub(" ", sentence)
    return not _CONDITIONAL.search(plain) and not _BEFORE.search(_REFUSAL.sub(" ", sentence[:at]))


def _done(call_result: Any, error: str | None) -> bool:
    """A call that did its job: neither its span nor its result says it failed or was refused
    (`miner.core.results`, which the grader's `si_reussi` and the write flags read too)."""
    return not error and failed_result(call_result) is None


# an adverb between the agent's own auxiliary and the participle (« j'ai quand même demandé », « je vous
# ai déjà envoyé ») does not change the claim: dropped, so that each phrase is written once; « un retour
# est déjà enregistré » says what was there before, no action of the agent's
_ADVERB = folded(
    r"\b(j'ai|je vous ai|je l'ai|je les ai|nous avons) (?:(?:quand meme|deja|bien|aussi|egalement|tout de suite"
    r"|immediatement) )+"
)


# the recent past said as the past (« je viens d'enregistrer » is « j'ai enregistré », « nous venons de
# transmettre » « nous avons transmis »): first-group verbs, and the participles of the others claims use
_JUST_DONE = folded(r"\b(je viens|nous venons) d(?:e |')(?:vous |le |la |les |l')?(\w+?)(er|ir|re)\b")
_PARTICIPLE = {"transmett": "transmis", "fai": "fait", "prend": "pris", "mett": "mis", "envoy": "envoye"}


def _as_past(m: re.Match[str]) -> str:
    who = "j'ai" if m.group(1) == "je viens" else "nous avons"
    stem, ending = m.group(2), m.group(3)
    done = _PARTICIPLE.get(stem) or stem + {"er": "e", "ir": "i", "re": "u"}[ending]
    return f"{who} {done}"


def spoken(answer: str) -> str:
    """An answer as the claim phrases are written: folded, in one spacing, « tu » said « vous », the
    recent past said as the past, the adverbs between an auxiliary and its participle dropped."""
    said = formal(norm(answer))
    if "viens d" in said or "venons d" in said:
        said = _JUST_DONE.sub(_as_past, said)
    return _ADVERB.sub(r"\1 ", said) if "ai " in said or "avons " in said else said


def claimed(
    answer: str,
    calls: Iterable[tuple[str, Any, str | None]],
    escalation: Sequence[str],
    said: str | None = None,
) -> str | None:
    """The first action the answer claims that no successful call (name, result, error) of the
    conversation so far does; None when every claim is backed. `said`: `spoken(answer)`, if read already."""
    said = spoken(answer) if said is None else said
    present = [
        (kind, phrases) for (kind, phrases), any_of in zip(CLAIMS, _ANY, strict=True) if any_of.search(said)
    ]
    if not present:
        return None
    done = [name for name, result, error in calls if _done(result, error)]
    sentences = _SENTENCE.split(said)
    for kind, phrases in present:
        phrase = next((p for p in phrases if any(_stated(s, p) for s in sentences)), None)
        if phrase is None:
            continue
        if kind == "escalation":
            backed = any(_matches(n, escalation) for n in done)
        elif kind == "change":
            backed = any(_matches(n, CHANGE_TOOLS) for n in done)
        else:
            backed = any(not _matches(n, LOOKUP_TOOLS) for n in done)
        if not backed:
            return phrase
    return None


# a change the agent offers or says it makes (« je peux la modifier », « dites-moi quoi changer et je mets à
# jour la commande », "I can cancel it for you"): made by a call later, but only by an agent with a tool
# that changes an order; one with none promises what it cannot do (a person has to)
OFFERS = (
    "je peux modifier",
    "je peux la modifier",
    "je peux le modifier",
    "je peux les modifier",
    "je peux changer",
    "je peux annuler",
    "je peux mettre a jour",
    "je peux faire la modification",
    "je mets a jour",
    "je la mets a jour",
    "je le mets a jour",
    "je la modifie",
    "je le modifie",
    "je modifie",
    "je vais modifier",
    "je vais changer",
    "je vais annuler",
    "j'annule",
    # English
    "i can update",
    "i can change",
    "i can modify",
    "i can cancel",
    "i'll update",
    "i will update",
    "i'll change",
    "i'll modify",
    "i'll cancel",
)
# every offer holds one of these (a test checks it): a substring test spares most answers the search
OFFER_WORDS = ("je ", "j'annule", "i can ", "i'll ", "i will ")
# « dites-moi ce que vous voulez changer et je m'en occupe »: the change taken on in other words (tables A
# to O: every cmd-04 answer said so was wrong; « je m'en occupe » of a return is not a change)
_OFFER = folded(
    "|".join(re.escape(p) for p in OFFERS)
    + r"|\b(?:chang|modifi|annul)\w*[^.!?\n]{0,60}\bje m'en (?:occupe|charge)|\bje fais la modification"
)


def offered_change(said: str, tools: Iterable[str]) -> str | None:
    """The change an answer (`spoken`) offers or says it makes, when none of the agent's `tools` changes
    an order (`CHANGE_TOOLS`); None otherwise. A refusal (« je ne peux pas la modifier ») offers nothing."""
    said = said.replace("...", " ")  # an ellipsis ends no sentence (« taille, adresse… et je m'en charge »)
    if not any(w in said for w in OFFER_WORDS):
        return None
    found = _OFFER.search(said)
    if found is None or any(_matches(n, CHANGE_TOOLS) for n in tools):
        return None
    for sentence in _SENTENCE.split(said):
        offer = _OFFER.search(_REFUSAL.sub(" ", sentence))
        if offer is not None:
            return offer.group()
    return None


# the answer says the agent cannot hand the customer to a person, in a turn whose own call did: its words
# contradict what it did (« je ne peux pas vous transférer » after a transfer)
DENIED_ESCALATION = folded(
    r"\b(?:ne (?:peux|pouvons) (?:pas|malheureusement pas)|impossible de) (?:vous )?"
    r"(?:transferer|mettre en relation|passer (?:a )?un conseiller)"
    r"|\b(?:can't|cannot|am unable to|i'm unable to) (?:transfer|connect) you\b"
)


_BY_ANOTHER_WAY = folded(r"[^.!?;]{0,30}\b(?:par telephone|au telephone|par e-?mail|by phone|by email)\b")


def denied(
    answer: str,
    turn_calls: Iterable[tuple[str, Any, str | None]],
    escalation: Sequence[str],
    said: str | None = None,
) -> str | None:
    """The escalation the answer denies although a call of this turn made it; None otherwise."""
    said = spoken(answer) if said is None else said
    if (
        "transfer" not in said
        and "relation" not in said
        and "conseiller" not in said
        and "connect" not in said
    ):
        return None
    found = DENIED_ESCALATION.search(said)
    if found is None or _BY_ANOTHER_WAY.match(said, found.end()):
        return None  # « je ne peux pas vous mettre en relation par téléphone »: one way refused, not all
    escalations = dict(CLAIMS)["escalation"]
    if any(p in said for p in escalations):
        return None  # « …, mais j'ai transmis votre demande »: the transfer said too
    done = any(_done(result, error) and _matches(name, escalation) for name, result, error in turn_calls)
    return found.group() if done else None


def _matches(name: str, patterns: Sequence[str]) -> bool:
    folded = name.lower()
    return any(fnmatchcase(folded, p.lower()) for p in patterns)
