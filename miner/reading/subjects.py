"""What a figure is about: the subject of the clause a duration is said in (« le remboursement intervient
sous 14 jours »: the refund), so that a delay the agent read about one thing is not taken for another's
(the 30 days to return an article are not the refund's). A subject is a few word stems in either language;
a clause that names none says nothing either way.

Pure functions over plain data; no model.
"""

from __future__ import annotations

from functools import lru_cache

from filon.miner.reading.folded import folded, twin
from filon.miner.reading.matching import by_first_letter

SUBJECTS: dict[str, tuple[str, ...]] = {
    "remboursement": ("rembours", "refund"),
    "retour": ("retour", "retourn", "renvoy", "retract", "return"),
    "livraison": ("livr", "expedi", "achemin", "deliver", "ship"),
    "preparation": ("prepar", "expedi"),  # a shipment ends the preparation and starts the delivery
    "retard": ("retard", "enquete", "delay"),
    "garantie": ("garanti", "warrant"),
    "validite": ("valab", "valid", "expire"),
}
_OF_STEM: dict[str, frozenset[str]] = {}
for _subject, _stems in SUBJECTS.items():
    for _stem in _stems:
        _OF_STEM[_stem] = _OF_STEM.get(_stem, frozenset()) | {_subject}
_STEM = folded(r"\b(" + by_first_letter(sorted(_OF_STEM, key=len, reverse=True)) + r")")  # the longest first
_ENDS = ".;!?:\n"
REACH = 200  # characters a clause is read either side of a fact: a run-on text costs linear time
# « préparée sous 1 à 2 jours, puis livrée en 2 à 4 jours »: two clauses, two subjects
_THEN = " puis "
_CLAUSE = folded(r"[.;!?:\n]| puis ")


def clause_start(plain: str, at: int) -> int:
    """Where the clause holding `at` starts: after the last « . ! ? ; : » before it, at most `REACH`
    characters back."""
    reach = max(0, at - REACH)
    return max(reach, *(plain.rfind(c, reach, at) + 1 for c in _ENDS), plain.rfind(_THEN, reach, at) + 1)


def clause_end(plain: str, end: int) -> int:
    """Where the clause holding `end` stops, at most `REACH` characters on."""
    limit = min(len(plain), end + REACH)
    found = (plain.find(c, end, limit) for c in (*_ENDS, _THEN))
    return min((i for i in found if i >= 0), default=limit)


def subjects_around(plain: str, at: int, end: int) -> frozenset[str]:
    """The subjects named before `at` in its clause of folded text (« la garantie légale, valable 2 ans »:
    the warranty and a validity), or, where none is, after `end` in it up to a comma (« comptez 30 jours
    pour le remboursement »)."""
    start, stop = clause_start(plain, at), clause_end(plain, end)
    k = twin(plain)  # each pattern as written or its ASCII twin (`miner.reading.folded`), chosen once
    # « une fois votre retour reçu, comptez 14 jours »: the return received is when, not what
    events = [m.span() for m in _RETURN_RECEIVED[k].finditer(plain, start, stop)] if _arrived(plain) else []

    def named(a: int, b: int) -> frozenset[str]:
        found = (m for m in _STEM[k].finditer(plain, a, b) if not any(x <= m.start() < y for x, y in events))
        return frozenset().union(*(_OF_STEM[m.group(1)] for m in found))

    # after the figure, up to its clause's next comma (« 30 jours pour le faire, et serez remboursé… »)
    comma = plain.find(",", end, stop)
    return named(start, at) or named(end, stop if comma < 0 else comma)


@lru_cache(maxsize=1024)
def subjects_of(text: str) -> frozenset[str]:
    """Every subject a folded text names (a result's key: « remboursement »)."""
    return frozenset().union(*(_OF_STEM[s] for s in _STEM.findall(text)))


def clauses(plain: str) -> list[tuple[frozenset[str], str]]:
    """The clauses of folded text, each with the subjects it names."""
    return [(_about(c), c) for c in _CLAUSE.split(plain) if c.strip()]


def _about(clause: str) -> frozenset[str]:
    """The subjects a clause names, the return received (when, not what) left out."""
    return subjects_of(_RETURN_RECEIVED.sub(" ", clause) if _arrived(clause) else clause)


def _arrived(text: str) -> bool:
    """Whether a text may say a return arrived (one pass of cheap tests before the pattern's)."""
    return "rec" in text or "parven" in text or "arriv" in text


_RETURN_RECEIVED = folded(
    r"\b(?:reception|recev\w*|recu\w*) (?:de |du |d' ?)?(?:votre |vos |le |la |l' ?|les |ce |cet |cette )?"
    r"(?:retour\w*|\w+ (?:retour|renvoy)\w*)"
    r"|\bretour (?:est |sera |a ete )?(?:bien )?recu"
    # « dès que votre colis retour nous est parvenu »: the return arrived, when and not what (table O)
    r"|\bretour (?:nous )?(?:est |sera |a ete )?(?:bien )?(?:parvenu|arrive)e?s?\b"
)


# what a delay counts from (« 14 jours après réception du retour », « 30 jours à compter de la
# livraison »): the refund's 14 days do not run from the request, nor the return's 30 from the return
_FROM = folded(
    r" ?(?:[\w']+ ){0,2}?"  # « 14 jours ouvrés après », « ces 14 jours courent à compter de »
    r"(?:apres|a compter d|a partir d|suivant|des (?=votre |vos |la |le |l' ?|reception|son |sa ))\w*"
    r"(?P<what>[^.;!?:\n,]{0,40})"
)
# the events a delay counts from, the first named wins (« à compter d'aujourd'hui » is from the request,
# table M's refund « sous 14 jours à compter d'aujourd'hui »); « réception » by what is received (« du retour »,
# « de votre commande retournée », « de votre demande », « de votre commande »; « du colis » may be the
# parcel delivered or the return, and « après réception pour nous le retourner » names nothing)
_EVENT = folded(
    r"(?P<recu>\brecept\w*|\brecu\w*)(?: (?:de |du |d' ?|des )(?:votre |vos |le |la |l' ?|les |ce |cette |cet )?"
    r"(?P<noun>\w+)(?: (?P<adj>\w+))?)?"
    r"|(?P<livraison>\blivr)|(?P<demande>\bdemand|\baujourd|\bmaintenant|\bce jour\b)|(?P<expedition>\bexpedi|\benvoi)|(?P<commande>\bcommand|\bachat)"
)


def _received(noun: str, adj: str) -> str:
    if not noun:  # « après réception », what is received unsaid: a return's or a delivery's, not a request
        return "reception"
    if noun.startswith(("retour", "renvoi")) or adj.startswith(("retour", "renvoy")):
        return "retour"
    if noun.startswith("demand"):
        return "demande"
    return "livraison" if noun.startswith(("command", "achat")) else ""


def anchor_after(plain: str, end: int) -> str:
    """The event a delay of folded text ending at `end` counts from, "" where it names none: `livraison`,
    `retour` (the return received), `reception` (something received: either), `demande`, `expedition`,
    `commande` (« du jour où votre commande vous a été livrée » is the delivery)."""
    m = _FROM.match(plain, end)
    if m is None:
        return ""
    ordered = False
    for event in _EVENT.finditer(m.group("what")):
        if event.group("commande"):
            ordered = True  # the order, unless a later word says what happened to it
            continue
        if event.group("recu") is not None:
            return _received(event.group("noun") or "", event.group("adj") or "")
        return next(k for k in ("livraison", "demande", "expedition") if event.group(k))
    return "commande" if ordered else ""


RECEIVED = frozenset({"retour", "livraison", "reception"})


def same_start(said: str, read: set[str]) -> bool:
    """Whether a delay said from `said` counts from an event among `read`: a bare « réception » is a
    return's or a delivery's, never a request's nor an order's."""
    return (
        said in read
        or (said in RECEIVED and "reception" in read)
        or (said == "reception" and bool(read & RECEIVED))
    )
