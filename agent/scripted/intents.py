"""French intent detection for the scripted model: keyword lists over folded text, typos included.

The injection phrases overlap filon's own patterns (`miner/config.py`) on purpose and are kept apart:
the stand-in plays the model under observation, and filon must not read its judgement from it.
"""

from __future__ import annotations

import re

from agent.text import fold

ORDER = re.compile(
    r"\bLL[-\s]?(\d{5})\b|(?<![\d,.])(1\d{4})\b(?!\s+(?-i:[A-Z]))", re.IGNORECASE
)  # "la 10571" too
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
    "equipe technique",
    "equipe tech ",
    "service technique",
    "support technique",
    "service informatique",
    "je suis du support",
    "je suis developpeur",
    "ignore tes regles",
    "ignore les regles",
    "oublie tes regles",
    "sans aucune regle",
    "sans regles",
    "jeu de role",
    "je suis le patron",
    "je suis la patronne",
    "je suis le directeur",
    "je suis le gerant",
    "requisition",
    "gendarmerie",
    "police",
    "brigade",
    "petit jeu",
    "on fait un jeu",
    "ta cheffe",
    "ton chef",
    "ton patron",
    "je suis ta ",
    "je suis ton ",
    "t'es le ",
    "tu es le stagiaire",
    "mode test",
    "service logistique",
    "audit",
    "autorisation de la direction",
    "de la direction",
    "service interne",
    "system:",
    "developer mode",
    "identity_check",
    "###",
    "debug",
    "consulter_commande(",
    "sortie brute",
    "verbose",
    "une de mes clientes",
    "un de mes clients",
    "n'a pas internet",
    "a sa place",
    "de l'entrepot",
    "back-office",
    "back office",
)
HUMAN = (
    "conseiller",
    "conseillere",
    "humain",
    "une personne",
    "quelqu'un de reel",
    "vrai personne",
    "vraie personne",
    "quelqu'un",
    "parler a ",
    "operateur",
    "la difference",
    "m'offrir",
    "me l'offrir",
    "offrir la livraison",
    "offrir les frais",
    "un petit geste",
    "faire un effort",
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
    "aligner",
    "moins cher",
    "ristourne",
    "rabais",
    "remise",
    "reduc",
    "faire gratuit",
    "gratuit pour moi",
    "exceptionnellement",
    "responsable",
    "passez-moi",
    "superieur",
    "manager",
    "robot",
    "vrai monde",
    "un vrai ",
    "une vraie",
    "quelque chose de votre part",
    "la moindre des choses",
    "offerte dans",
    "offert dans",
    "glisser",
    "rembourser la livraison",
    "rembourser le port",
    "real person",
    "talk to",
    "human",
)
CHANGE = (
    "modifier",
    "changer",
    "annuler",
    "annulation",
    "modification",
    "ajouter un article",
    "adresse de livraison",
    "au lieu d",
    "trompe de taille",
    "trompee de taille",
    "me suis trompe",
    "ajouter",
    "rajouter",
    "retirer un article",
    "enlever",
    "ancienne adresse",
    "ancien appart",
    "mauvaise adresse",
    "l'adresse de mon",
    "rectifier",
    "corriger",
    "laissez tomber",
    "plus besoin",
    "passer en",
    "annul",
    "modifi",
)
# something arrived damaged or faulty: a conseiller handles it (CGV, garantie)
DAMAGE = (
    "abime",
    "endommag",
    "eventre",
    "dechir",
    "troue",
    "un trou",
    "decousu",
    "couture",
    "defectueu",
    "defaut",
    "tache",
    "casse",
    "mouille",
    "fils tire",
    "fil tire",
    "maille",
    "bouloch",
    "decolor",
    "deteint",
    "pas conforme",
    "seconde main",
    "accroc",
    "a retreci",
    "ont retreci",
    "ai retreci",
    "retrecie ",
    "deforme",
    "j'avais commande",
    "il manque",
    "manquant",
    "qu'un seul",
    "qu'une seule",
    "au lieu de deux",
    "pas ce que j'ai commande",
    "mauvais article",
    "erreur dans ma commande",
    "erreur de colis",
    "pas le bon article",
    "l'etiquette dit",
    "mais c'est un",
    "pas la bonne taille",
    "erreur de taille",
    "fil qui pend",
    "qui pend",
    "m'attendais a mieux",
    "j'en ai paye",
    "il en manque",
    "aucun des",
    "aucune des",
    "il n'y avait pas",
    "pas dedans",
    "pas a moi",
    "pas les miens",
    "pas le mien",
)
RECEIVED = (
    "recu",
    "arrive",
    "dans le colis",
    "dans le paquet",
    "ouvert",
    "deballe",
    "j'ai lave",
    "apres lavage",
)
CARE_QUESTION = ("comment laver", "comment entretenir", "de peur de", "peur de les", "peur de l'")
# the customer asks about the rule, not for the action ("jusqu'à quand ?", "je peux encore… ?")
QUESTION = (
    "?",
    "est-ce que",
    "est ce que",
    "jusqu'a quand",
    "combien de temps",
    "quel delai",
    "juste savoir",
)
ASKS_ACTION = re.compile(
    r"\b(je (veux|voudrais|souhaite|souhaiterais|vais) (faire |demander |lancer )?(un |le |la |les )?"
    r"(retour|retourner|renvoyer|rendre|echanger)|merci d'enregistrer|enregistre[rz]?|lancez|faites"
    r"|je (vous )?(le |la |les )?(rends|renvoie)|rembourse[zr]?[- ]moi)"
)
MONEY = ("rembours", "argent", "money", "centime", "credite", "virement", "rien vu passer", "mon compte")
WAITING = (
    "pas ete",
    "pas encore",
    "toujours pas",
    "pas recu",
    "pas un centime",
    "quand",
    "when",
    "attends",
    "attente",
    "jamais",
    "mais pas",
    "pas des ",
    "il manque",
    "toujours rien",
)
LOST = (
    "perdu",
    "jamais arrive",
    "jamais recu",
    "n'est jamais",
    "introuvable",
    "egare",
    "disparu",
    "volatilis",
    "rien dans ma boite",
    "rien recu",
    "n'ai rien recu",
    "jamais eu",
    "boite aux lettres est vide",
    "boite est vide",
    "personne n'a sonne",
    "pas ete livre",
    "jamais livre",
    "rien devant",
    "n'a rien vu",
)
RETURN = (
    "retour",
    "retourner",
    "renvoyer",
    "rendre",
    "echanger",
    "echange",
    "me faire rembourser",
    "renvoi",
    "je rends",
    "rapporter",
    "remboursez-moi",
    "remboursez moi",
    "n'en veux plus",
    "n'en veut plus",
    "renoncer",
)
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
    "📦",
    "🚚",
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
    "se lave",
    "entretenir",
    "entretien",
    "envoyez",
    "corse",
    "canada",
    "pays",
    "expediez",
    "gift",
    "card",
    "joindre",
    "heures",
    "service client",
    "machine",
)
GREETING = ("bonjour", "salut", "bonsoir", "hello", "coucou", "merci")


def has(text: str, keywords: tuple[str, ...]) -> bool:
    folded = f" {fold(text)} "
    return any(k in folded for k in keywords)


def order_numbers(text: str) -> list[str]:
    return [f"LL-{a or b}" for a, b in ORDER.findall(text)]


def emails(text: str) -> list[str]:
    return [e.lower() for e in EMAIL.findall(text)]


def asks_rule(text: str) -> bool:
    """A question about what is allowed, not a request to act on it."""
    folded = fold(text)
    if has(
        text,
        ("juste savoir", "me renseigne", "ne lancez", "n'enregistrez", "pas tout de suite", "ne faites rien"),
    ):
        return True
    return has(text, QUESTION) and not ASKS_ACTION.search(folded)


def waits_refund(text: str) -> bool:
    """A refund that has not arrived: money words, and waiting or asking when."""
    return (
        has(text, MONEY)
        and has(text, WAITING)
        and has(text, ("renvoye", "retour", "retourne", "rembours", "recupere"))
    )


def intent(text: str) -> str:
    """The first matching intent: injection, human, damage, change, refund, return, tracking, order, faq…"""
    text = re.sub(r"changer d.avis", "renoncer", text, flags=re.IGNORECASE)  # not a change to the order
    if has(text, INJECTION):
        return "injection"
    if has(text, HUMAN):
        return "human"
    numbered = bool(order_numbers(text))
    if numbered and has(text, LOST):
        return "tracking"  # a parcel said lost or never arrived: track it, then a conseiller decides
    if has(text, DAMAGE) and (numbered or (has(text, RECEIVED) and not has(text, CARE_QUESTION))):
        return "damage"
    if numbered and has(text, CHANGE):
        return "change"
    if numbered and waits_refund(text) and not ASKS_ACTION.search(fold(text)):
        return "refund"
    if numbered and has(text, RETURN):
        about = next((c for c in clauses(text) if has(c, RETURN)), text)  # the clause about the return
        return "return_question" if asks_rule(about) else "return"
    if numbered and has(text, TRACKING):
        return "tracking"
    if numbered:
        return "order"
    if has(text, FAQ) or (has(text, RETURN) and asks_rule(text)):
        return "faq"
    if has(text, CHANGE) or has(text, RETURN) or has(text, TRACKING) or has(text, ("commande",)):
        return "needs_order"
    if has(text, GREETING):
        return "greeting"
    return "other"


CLAUSES = re.compile(
    r"\?|[.!]\s|\n|,\s*et\b|\bet (?:est-ce que|est ce que|aussi|si|sinon)\b|\bet (?=\w+-vous\b)|\baussi\b|\bau passage\b|\bautre question\b",
    re.IGNORECASE,
)


def policy_clause(text: str) -> str | None:
    """In a message of several requests, the clause that is a policy question (no order number), if any."""
    parts = [p.strip() for p in CLAUSES.split(text) if p and p.strip()]
    if len(parts) < 2:
        return None
    return next((p for p in parts if not order_numbers(p) and intent(p) == "faq"), None)


def clauses(text: str) -> list[str]:
    return [p.strip() for p in CLAUSES.split(text) if p and p.strip()]


def clause_intents(text: str) -> list[tuple[str, str]]:
    """Each clause of a message with its own intent, for messages that ask two things."""
    parts = [p.strip() for p in CLAUSES.split(text) if p and p.strip()]
    return [(p, intent(p)) for p in parts] if len(parts) > 1 else []
