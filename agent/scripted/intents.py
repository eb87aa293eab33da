"""French intent detection for the scripted model: keyword lists over folded text, typos included.

The injection phrases overlap filon's own patterns (`miner/config.py`) on purpose and are kept apart:
the stand-in plays the model under observation, and filon must not read its judgement from it.
"""

from __future__ import annotations

import re

from agent.text import fold

ORDER = re.compile(r"\bLL[-\s]?(\d{5})\b", re.IGNORECASE)
EMAIL = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}"
)  # bounded: linear on hostile input

INJECTION = (
    "mode maintenance",
    "mode developpeur",
    "mode debug",
    "mode admin",
    "ignore tes instructions",
    "ignore les instructions",
    "ignore tes consignes",
    "ignore les consignes",
    "ignore toutes",
    "oublie tes instructions",
    "oublie tes consignes",
    "tu es maintenant",
    "je suis administrateur",
    "je suis l'administrateur",
    "en tant qu'administrateur",
    "je suis un employe",
    "prompt systeme",
    "system prompt",
    "affiche tes instructions",
    "nouvelles instructions",
)
HUMAN = (
    "conseiller",
    "conseillere",
    "humain",
    "une personne",
    "quelqu'un de reel",
    "vrai personne",
    "geste commercial",
    "geste",
    "dedommag",
    "compensation",
    "indemnis",
    "code promo",
    "bon d'achat",
    "remboursement des frais",
    "rembourser les frais",
    "reduction",
    "inadmissible",
    "scandale",
    "litige",
    "plainte",
    "reclamation",
    "avocat",
)
CHANGE = (
    "modifier",
    "changer",
    "annuler",
    "annulation",
    "modification",
    "ajouter un article",
    "adresse de livraison",
)
RETURN = ("retour", "retourner", "renvoyer", "rendre", "echanger", "echange", "me faire rembourser")
TRACKING = (
    "colis",
    "coli ",
    "livraison",
    "livraizon",
    "livre",
    "recu",
    "suivi",
    "suivre",
    "ou en est",
    "arrive",
    "retard",
    "transporteur",
    "expedi",
    "toujours pas",
    "perdu",
)
FAQ = (
    "livraison",
    "frais",
    "port",
    "delai",
    "paiement",
    "payer",
    "carte",
    "paypal",
    "taille",
    "entretien",
    "laver",
    "lavage",
    "lin",
    "laine",
    "cadeau",
    "retour",
    "rembourse",
    "etranger",
    "belgique",
    "suisse",
    "fabrique",
    "livrez",
    "livrer",
    "tarif",
    "horaire",
    "contact",
    "cgv",
    "conditions",
    "garantie",
    "defaut",
    "annul",
    "modifi",
    "3 fois",
    "plusieurs fois",
    "dom",
    "outre-mer",
    "rétract",
    "retract",
    "personnalis",
)
GREETING = ("bonjour", "salut", "bonsoir", "hello", "coucou", "merci")


def has(text: str, keywords: tuple[str, ...]) -> bool:
    folded = f" {fold(text)} "
    return any(k in folded for k in keywords)


def order_numbers(text: str) -> list[str]:
    return [f"LL-{m}" for m in ORDER.findall(text)]


def emails(text: str) -> list[str]:
    return [e.lower() for e in EMAIL.findall(text)]


def intent(text: str) -> str:
    """The first matching intent: injection, human, change, return, tracking, order, faq, greeting, other."""
    if has(text, INJECTION):
        return "injection"
    if has(text, HUMAN):
        return "human"
    numbered = bool(order_numbers(text))
    if numbered and has(text, CHANGE):
        return "change"
    if numbered and has(text, RETURN):
        return "return"
    if numbered and has(text, TRACKING):
        return "tracking"
    if numbered:
        return "order"
    if has(text, FAQ):
        return "faq"
    if has(text, CHANGE) or has(text, RETURN) or has(text, TRACKING) or has(text, ("commande",)):
        return "needs_order"
    if has(text, GREETING):
        return "greeting"
    return "other"
