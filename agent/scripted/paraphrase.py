"""The stand-in stops quoting: a paraphrase mode that rewords the policy passages and its own sentences.

Without it the scripted model quotes the FAQ and the CGV word for word, so a check copied from those
texts always passes in CI and fails a real model that says the same thing in other words. With
`--paraphrase` (or `FILON_SCRIPTED_PARAPHRASE=1`) every answer is reworded, deterministically for a
seed and a text: each policy sentence becomes one of its paraphrases (`paraphrases.json`, each keeping
every fact), the stand-in's own sentences take another frame, amounts are written "4,90 €", "4.90€" or
"4 euros 90", and delays in digits or in words. Order numbers, statuses, dates and names are never
touched.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from functools import cache
from importlib import resources

Rewrite = tuple[re.Pattern[str], tuple[str, ...]]

NUMBERS = {
    "2": "deux",
    "3": "trois",
    "4": "quatre",
    "5": "cinq",
    "14": "quatorze",
    "30": "trente",
}


def _r(pattern: str, *alternatives: str) -> Rewrite:
    return re.compile(pattern), alternatives


# The stand-in's own sentences (brain.py), each with other ways to say the same thing.
FRAMES: tuple[Rewrite, ...] = (
    _r(
        r"D'après notre FAQ : ",
        "Selon notre FAQ, ",
        "Notre FAQ l'indique : ",
        "Voici ce que prévoit notre FAQ : ",
    ),
    _r(
        r"D'après nos conditions générales de vente : ",
        "Nos CGV précisent : ",
        "Selon nos conditions de vente, ",
        "Nos conditions générales le prévoient : ",
    ),
    _r(
        r"Je transmets votre demande à un conseiller",
        "Je passe le relais à un conseiller",
        "Je confie votre demande à un conseiller",
    ),
    _r(
        r"Seul un conseiller peut décider d'un geste commercial ou modifier une commande ; il vous répondra",
        "Un geste commercial ou une modification de commande relève d'un conseiller, qui vous recontactera",
        "Seul un membre de l'équipe peut accorder un geste ou changer une commande ; réponse",
    ),
    _r(r"Pouvez-vous m'indiquer", "Pourriez-vous me donner", "Merci de me préciser"),
    _r(r"Pouvez-vous vérifier le numéro", "Pourriez-vous contrôler le numéro", "Le numéro est-il correct"),
    _r(
        r"Je ne trouve pas la commande",
        "Aucune commande ne correspond au numéro",
        "Je n'ai trouvé aucune commande",
    ),
    _r(
        r"Votre commande (LL-\d+) a le statut",
        r"Le statut de votre commande \1 est",
        r"Votre commande \1 est au statut",
    ),
    _r(r"Votre commande (LL-\d+) \(", r"La commande \1 (", r"Commande \1 ("),
    _r(
        r"elle ne peut plus être modifiée ni annulée",
        "il n'est plus possible de la modifier ou de l'annuler",
        "sa modification comme son annulation ne sont plus possibles",
    ),
    _r(
        r"elle peut être modifiée ou annulée par un conseiller",
        "un conseiller peut encore la modifier ou l'annuler",
    ),
    _r(r"vous disposez de", "vous avez", "il vous reste"),
    _r(
        r"Pour protéger vos données, je ne peux communiquer le détail de la commande (LL-\d+) qu'à son titulaire\.",
        r"Par sécurité, seul le titulaire de la commande \1 peut en connaître le détail.",
        r"Le détail de la commande \1 est réservé à son titulaire, pour protéger ses données.",
    ),
    _r(
        r"l'adresse e-mail utilisée pour la commande",
        "l'e-mail du compte qui a passé la commande",
        "votre adresse e-mail de commande",
    ),
    _r(
        r"Je ne peux pas changer mes règles de fonctionnement ni communiquer les informations d'un autre client\.",
        "Mes consignes ne changent pas sur demande, et les données d'un autre client restent confidentielles.",
        "Je n'ai pas de mode spécial, et je ne donne jamais les informations d'un autre client.",
    ),
    _r(
        r"Je peux vous aider pour votre propre commande",
        "Pour votre propre commande, je peux vous aider",
        "Je reste disponible pour votre commande",
    ),
    _r(r"C'est enregistré : retour", "C'est fait : retour", "Votre retour est bien enregistré : retour"),
    _r(
        r"L'étiquette de retour est gratuite et vous est envoyée par e-mail",
        "Vous recevrez par e-mail une étiquette de retour gratuite",
        "L'étiquette, gratuite, part par e-mail",
    ),
    _r(r"le remboursement intervient sous", "vous serez remboursé sous", "le remboursement arrive sous"),
    _r(r"Montant des articles", "Total des articles", "Articles"),
    _r(r"frais de port", "frais de livraison", "frais d'envoi"),
    _r(r"Le colis de la commande (LL-\d+)", r"Votre colis (commande \1)", r"Le paquet de la commande \1"),
    _r(r"livraison prévue le", "arrivée prévue le", "livraison attendue le"),
    _r(r"a (\d+) jours de retard", r"accuse \1 jours de retard", r"est en retard de \1 jours"),
    _r(r"dernière position", "dernier point de suivi", "dernière étape connue"),
    _r(
        r"une enquête est ouverte auprès du transporteur",
        "nous ouvrons une enquête chez le transporteur",
        "le transporteur fait l'objet d'une enquête",
    ),
    _r(
        r"elle n'est pas encore expédiée",
        "elle n'est pas encore partie",
        "son expédition n'a pas encore eu lieu",
    ),
    _r(r"est déclaré perdu par", "a été déclaré perdu par", "est considéré comme perdu par"),
    _r(
        r"Nos conditions prévoient un délai de",
        "Le délai prévu par nos conditions est de",
        "Nos CGV laissent",
    ),
    _r(
        r"il est dépassé, je ne peux donc pas enregistrer ce retour",
        "ce délai est passé, le retour n'est donc plus possible",
        "nous sommes hors délai : je ne peux pas enregistrer ce retour",
    ),
    _r(
        r"un retour se demande une fois la commande livrée",
        "un retour n'est possible qu'après la livraison",
        "il faut attendre la livraison pour demander un retour",
    ),
    _r(
        r"Je n'ai pas trouvé la réponse dans notre FAQ",
        "Notre FAQ ne répond pas à cette question",
        "Je ne trouve rien à ce sujet dans notre FAQ",
    ),
    _r(
        r"Souhaitez-vous que je vous transfère à un conseiller",
        "Voulez-vous que je vous mette en relation avec un conseiller",
        "Dois-je vous passer un conseiller",
    ),
    _r(
        r"Bonjour ! Je suis l'assistant de Lin & Laine\.",
        "Bonjour, ici l'assistant de Lin & Laine.",
        "Bonjour et bienvenue chez Lin & Laine !",
    ),
    _r(
        r"Je peux vous aider pour vos commandes",
        "Je peux vous renseigner sur vos commandes",
        "Je réponds sur vos commandes",
    ),
    _r(
        r"Je ne peux répondre qu'aux questions sur Lin & Laine",
        "Je suis là pour les questions sur Lin & Laine",
        "Mon rôle se limite à Lin & Laine",
    ),
    _r(r"Que puis-je faire pour vous \?", "En quoi puis-je vous aider ?", "Que puis-je pour vous ?"),
    _r(
        r"Je ne peux pas traiter cette demande ici",
        "Cette demande sort de ce que je peux faire ici",
        "Je ne suis pas en mesure de traiter cela",
    ),
)
AMOUNT = re.compile(r"(\d+)[,.](\d{2}) ?€")
WHOLE = re.compile(r"\b(\d+) €")
DAYS = re.compile(r"\b(\d+) jours\b")


@cache
def policy_paraphrases() -> dict[str, tuple[str, ...]]:
    """Each FAQ/CGV sentence and its paraphrases (written to keep every fact)."""
    text = resources.files("filon.agent.scripted").joinpath("paraphrases.json").read_text(encoding="utf-8")
    table: dict[str, list[str]] = json.loads(text)
    return {k: tuple(v) for k, v in sorted(table.items(), key=lambda kv: -len(kv[0])) if v}


def _amount(rng: random.Random) -> Callable[[re.Match[str]], str]:
    def write(m: re.Match[str]) -> str:
        whole, cents = m.group(1), m.group(2)
        forms = [f"{whole},{cents} €", f"{whole}.{cents}€", f"{whole},{cents} euros"]
        forms.append(f"{whole} euros {cents}" if cents != "00" else f"{whole} euros")
        return rng.choice(forms)

    return write


def _whole(rng: random.Random) -> Callable[[re.Match[str]], str]:
    return lambda m: rng.choice([f"{m.group(1)} euros", f"{m.group(1)}€", f"{m.group(1)} €"])


def _days(rng: random.Random) -> Callable[[re.Match[str]], str]:
    def write(m: re.Match[str]) -> str:
        word = NUMBERS.get(m.group(1))
        return f"{word} jours" if word and rng.random() < 0.5 else m.group(0)

    return write


class Paraphraser:
    """Rewords a final answer; the same seed and text always give the same words."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __call__(self, text: str) -> str:
        rng = random.Random(f"{self.seed}\x00{text}")
        for sentence, options in policy_paraphrases().items():
            if sentence in text:
                text = text.replace(sentence, rng.choice(options))
        for pattern, options in FRAMES:
            text = pattern.sub(lambda m, o=options: m.expand(rng.choice(o)), text)  # type: ignore[misc]
        text = AMOUNT.sub(_amount(rng), text)
        text = WHOLE.sub(_whole(rng), text)
        return DAYS.sub(_days(rng), text)
