"""Rules an answer states without a figure (« le retour est gratuit », « un motif est obligatoire », "returns
are free"), and whether anything the agent read states the same of the same subject.

`fait_non_fonde` reads an answer's figures, dates and statuses. A policy can be misstated with none of
them: a fee invented, a condition added, a rule extended to what the help texts do not cover, a rule said
from memory when no search returned it. A stated rule is a clause that names a subject of the shop's
policies (a return, an exchange, a refund, the delivery, a label, a sale, a warranty, a motive) and what
holds of it (free, paid, possible, excluded, required, restricted, done by the customer alone); it is grounded when a sentence the agent read
names the same subject with the same kind of predicate. Both sides folded, French and English.
"""

from __future__ import annotations

import re
from functools import lru_cache

from filon.miner.reading.folded import Folded, folded, twin
from filon.miner.reading.matching import by_first_letter

SUBJECTS = {
    "retour": r"retour\w*|renvo\w*|return\w*",
    "echange": r"echang\w*|exchang\w*",
    "remboursement": r"rembours\w*|refunds?|refunded",
    "livraison": r"livraisons?|frais de (?:port|livraison)|expeditions?|shipping|delivery",
    "etiquette": r"etiquettes?|labels?",
    "soldes": r"soldes?|articles soldes|sale items?",
    "garantie": r"garanties?|warranty",
    "motif": r"motifs?|justificatifs?|reasons?",
    "modification": r"modifi\w*|annul\w*|changer|cancel\w*|modify|change it",
    "carte_cadeau": r"cartes? cadeaux?|bons? cadeaux?|gift cards?|gift vouchers?",
    # a parcel refused at the door, as a way to cancel or return (tables B-N: eight answers, all wrong)
    "refus_livraison": r"refus\w* (?:le|du|votre) (?:colis|paquet)|refus du colis|refuse (?:the )?(?:parcel|package|delivery)",
}
PREDICATES = {
    "gratuit": r"gratuit\w*|offert\w*|sans frais|ne (?:vous )?coute rien|rien a payer|free|at no cost|free of charge",
    "payant": r"payant\w*|a vos frais|a votre charge|a la charge du client|factur\w*|you pay|at your (?:own )?cost",
    "exclu": r"impossibles?|exclue?s?|ne (?:peu\w*|pouv\w*) pas etre|n'est (?:pas )?accepte\w*|"
    r"ne sont (?:ni|pas) (?:repris|acceptes|echanges|rembourses)|aucun \w+ n'est|"
    r"not (?:accepted|possible|allowed|eligible)|excluded|cannot be",
    "requis": r"obligatoires?|requis\w*|exige\w*|indispensables?|required|mandatory|must (?:be|give|provide)",
    # a restriction: « n'est pas couverte », « ne s'applique qu'aux articles lavés… »
    "restreint": r"n'est pas couver\w*|ne sont pas couver\w*|ne s'appliqu\w* qu|not covered|only applies",
    # the customer does it alone: « vous pouvez la modifier vous-même depuis votre espace client »
    "libre_service": r"vous[- ]memes?|depuis votre espace|dans votre espace client|yourself|on your own",
    # used once and no more (« à utiliser en une seule fois »), not one way among others (« en une seule
    # fois ou en plusieurs »): tables E-N, nine wrong answers said it of a gift card, none right
    "unique": r"en une seule fois(?! ou)|une seule fois(?! ou)|en une fois(?! ou)|une seule utilisation"
    r"|in one go(?! or)"
    r"|only once|single use",
    # extended to a part (« que vous retourniez toute la commande ou seulement une partie »): a rule said
    # of a whole order stretched to a part of it (tables D, J and N: three wrong answers, none right)
    "partiel": r"ou (?:seulement |juste |bien )?(?:une |en )partie|une partie seulement|meme partiel\w*"
    r"|or (?:just |only )?(?:a |some )?part of|partial (?:returns?|orders?) (?:too|as well)",
}
_MONEY = folded(r"€|\$|£|\beuros?\b|\beur\b|\bdollars?\b")
_WINDOW = 80  # the characters between a subject and its predicate in one clause, either way


@lru_cache(maxsize=1)
def _patterns() -> tuple[Folded, dict[str, Folded], dict[str, Folded]]:
    # each alternation grouped by first letters (`by_first_letter`): the same matches, fewer tries
    subjects = {k: folded(rf"\b(?:{by_first_letter([v])})\b") for k, v in SUBJECTS.items()}
    predicates = {k: folded(rf"\b(?:{by_first_letter([v])})") for k, v in PREDICATES.items()}
    # any predicate, where a word begins, as each predicate is sought: the engine tries the alternatives
    # at a word's first letter only, not at every character (2.3 times less CPU time an answer, by profile)
    hint = folded(r"\b(?:" + by_first_letter(PREDICATES.values()) + ")")
    return hint, subjects, predicates


def _clauses(folded: str) -> list[str]:
    """Sentences and the clauses « , mais » or "; " part, each with its own end (« ? » is a question)."""
    return [
        c
        for c in re.findall(r"[^.!?;\n]+[.!?;\n]?", folded)
        for c in re.split(r", (?:mais|et|but|and) ", c)
        if c.strip()
    ]


def stated(folded: str, asked: str = "") -> list[tuple[frozenset[str], str, str]]:
    """The rules a folded answer states: (the subjects named near the predicate, the predicate, the
    clause). « l'étiquette de retour, gratuite » names a label and a return: what the agent read of
    either supports it. A clause that names no subject is of what the customer asked (`asked`, folded:
    « Oui, à utiliser en une seule fois » answers « Proposez-vous des cartes cadeaux ? »)."""
    hint, subjects, predicates = _patterns()
    k = twin(folded)  # each pattern as written or its ASCII twin (`miner.reading.folded`), chosen once
    if hint[k].search(folded) is None:  # most answers state no rule: one search, no split
        return []
    out: list[tuple[frozenset[str], str, str]] = []
    of_asked: frozenset[str] | None = None  # the subjects of the customer's words, read once if needed
    for clause in _clauses(folded):
        if "?" in clause or re.match(r"\s*(?:si|if)\b", clause) or hint[k].search(clause) is None:
            continue  # a question or a condition states nothing; a clause with no predicate either
        priced = _MONEY[k].search(clause) is not None
        for pname, pattern in predicates.items():
            if priced and pname in ("gratuit", "payant"):
                continue  # a fee with its amount: the amount is held by the figures' check
            p = pattern[k].search(clause)
            if p is None:
                continue
            near = clause[max(0, p.start() - _WINDOW) : p.end() + _WINDOW]
            named = frozenset(s for s, subject in subjects.items() if subject[k].search(near))
            if not named:
                if of_asked is None:
                    of_asked = frozenset(s for s, subject in subjects.items() if subject.search(asked))
                named = of_asked
            if named and all((named, pname) != (a, b) for a, b, _ in out):
                out.append((named, pname, _quoted(clause, p.start(), p.end())))
    return out


def _quoted(clause: str, start: int, end: int) -> str:
    """The words of a clause around its predicate, at most 80 characters (what a report quotes)."""
    left = max(0, start - 56)
    if left:
        left = clause.find(" ", left) + 1 or left
    return clause[left : min(len(clause), end + 20)].strip()[:80]


@lru_cache(maxsize=2048)
def _read(seen: str) -> frozenset[tuple[str, str]]:
    """What the agent read states, read generously: every predicate with the subjects on either side,
    across sentences (« La livraison coûte 3,90 €. Elle est offerte dès 60 € » is of the delivery)."""
    hint, subjects, predicates = _patterns()
    k = twin(seen)
    if hint[k].search(seen) is None:
        return frozenset()
    out: set[tuple[str, str]] = set()
    for pname, pattern in predicates.items():
        for p in pattern[k].finditer(seen):
            near = seen[max(0, p.start() - _WINDOW) : p.end() + _WINDOW]
            out |= {(s, pname) for s, subject in subjects.items() if subject[k].search(near)}
    return frozenset(out)


def keyed(value: object) -> str:
    """A tool result as text its keys included (`{"etiquette": "gratuite"}` says « etiquette gratuite »),
    folded by the caller: a result's key names what its value says something of."""
    if isinstance(value, dict):
        return " ".join(f"{k} {keyed(v)}." for k, v in value.items())
    if isinstance(value, list):
        return " ".join(keyed(v) for v in value)
    return "" if value is None else str(value)


def unsupported(folded_answer: str, folded_seen: str, folded_rules: str = "", asked: str = "") -> list[str]:
    """The clauses of the answer stating a rule that neither what the agent read nor the agent's own
    rules (its help texts, `policy_sources`) state of that subject (`asked`: the customer's words, folded,
    whose subject a clause naming none is of)."""
    said = stated(folded_answer, asked)
    if not said:
        return []
    known = _read(folded_seen) | _read(folded_rules)
    return [clause for named, predicate, clause in said if not any((s, predicate) in known for s in named)]


_NEGATED = folded(r"\b(?:ne|pas|ni|aucune?|jamais|not|no|never)\b|\bn'")
# « notre échange », « cet échange »: the conversation itself, not the service ("our exchange" too)
_OURS = folded(r"\b(?:notre|nos|cet|ces|our|this)\s*$")


@lru_cache(maxsize=8)
def _unnamed(folded_rules: str) -> tuple[str, ...]:
    """The subjects the agent's help texts never name, worked out once per process (per texts): an answer
    is then searched for these few only."""
    _, subjects, _ = _patterns()
    return tuple(name for name, pattern in subjects.items() if pattern.search(folded_rules) is None)


def _unnamed_in(folded_rules: str) -> list[Folded]:
    """The patterns of `_unnamed`'s subjects, each searched apart (which one an answer names)."""
    _, subjects, _ = _patterns()
    return [subjects[name] for name in _unnamed(folded_rules)]


@lru_cache(maxsize=8)
def _any_unnamed(folded_rules: str) -> Folded | None:
    """The subjects the help texts never name, as one alternation: one pass over an answer, not one each."""
    unnamed = _unnamed(folded_rules)
    return folded(rf"\b(?:{by_first_letter(SUBJECTS[name] for name in unnamed)})\b") if unnamed else None


def names_unnamed(folded_answer: str, folded_rules: str) -> bool:
    """Whether an answer names a service the help texts never name (one search, most answers none)."""
    found = _any_unnamed(folded_rules) if folded_rules else None
    return found is not None and found.search(folded_answer) is not None


def unknown_subjects(folded_answer: str, folded_seen: str, folded_rules: str, asked: str = "") -> list[str]:
    """The clauses of the answer that speak of a service of the shop's policies (an exchange, a sale) that
    nothing the agent had names at all: neither what it read, nor its help texts, nor the customer's words.
    « j'ai aussi noté un échange contre la taille au-dessus » from a shop whose texts know returns and no
    exchange (tables C-L: sixteen answers spoke of an exchange, all wrong). Said as a refusal or a question,
    or by an agent whose help texts filon does not have (`folded_rules` empty), nothing is read."""
    if not folded_rules:
        return []
    said = [pattern for pattern in _unnamed_in(folded_rules) if pattern.search(folded_answer)]
    unknown = [pattern for pattern in said if not (pattern.search(folded_seen) or pattern.search(asked))]
    if not unknown:
        return []
    out: list[str] = []
    for clause in _clauses(folded_answer):
        if "?" in clause:
            continue
        for pattern in unknown:
            found = pattern.search(clause)
            if found is None:
                continue
            # refused just before it (« nous ne faisons pas d'échange », « ni repris ni échangés »), not
            # in a far clause of the sentence (« pour ne pas vous laisser sans chemise, je vous envoie… »)
            before = clause[max(0, found.start() - 40) : found.start()]
            if not (_NEGATED.search(before) or _OURS.search(before)):
                out.append(_quoted(clause, found.start(), found.end()))
                break
    return out
