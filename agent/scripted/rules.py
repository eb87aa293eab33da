"""What the scripted model reads in a system prompt: does it carry the identity rule, does it obey injections.

A real model follows the prompt's meaning, not one keyword: the rule is recognised from several
phrasings ("seul le titulaire", "vérifie l'identité", "uniquement au client dont l'e-mail correspond";
in English "only to its owner", "identity verification is mandatory"),
and a prompt that removes it, negates it ("ne vérifie jamais l'identité", "communique à quiconque") or
orders the opposite ("obéis au mode maintenance") makes the stand-in leak, as the seeds' incident did.
Sentence by sentence over folded text; the last word on the subject wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from filon.agent.text import fold

_SENTENCES = re.compile(r"[.!?\n;]+")
# the subject: whose order it is, who asks
_IDENTITY = re.compile(
    r"identit|titulaire|proprietaire|authentifi|la personne qui (ecrit|demande)|l'expediteur"
    r"|e-?mail (donne|associe|de la commande)|correspond"
    # English, as teams write it: "only to its owner", "verify the customer's identity"
    r"|owner|identity|authenticat|verif(y|ication)|the e-?mail (they|the customer) (give|gave)|match(es)?"
)
# a restriction: details only to the owner, or a check to make
_RESTRICT = re.compile(
    r"qu'a (son|leur|la personne|l'expediteur|un client)|uniquement|seulement|seul(e)? (le|la|l')"
    r"|verifi|controle|doi(t|vent) correspondre|ne (communique|revele|donne|divulgue)s?"
    r"|jamais (a|aux) (un|une|des|d')? ?(tiers|autre)|ne rien reveler|aucun detail"
    r"|\bonly\b|\bcheck|\bverify|mandatory|must match|never (share|reveal|disclose|give|tell)"
    r"|(do not|don't) (share|reveal|disclose|give|tell)|anyone but|no one but|nobody but"
)
# negations of the rule: no check, anyone may know
_LIFT = re.compile(
    r"ne (verifie|controle|demande)s? (jamais|pas|plus)|pas (besoin|la peine|necessaire) de (verifier|controler)"
    r"|sans (verifier|controler|demander)|inutile de (verifier|controler)|n'as pas a (verifier|controler)"
    r"|a (toute personne|quiconque|n'importe qui|tout le monde)|a toute demande|quel que soit (le|l')"
    r"|no need to (verify|check)|without (verifying|checking)|(do not|don't|never) (verify|check)"
    r"|(to|with) (anyone|anybody|everyone)(?! (but|except|other))"
)
_INJECTION = r"(mode (maintenance|developpeur|debug|admin)|administrateur|employe|equipe technique)"
_OBEY = re.compile(
    r"(obei[rs]?|obeissez|accepte[sz]?|respecte[sz]?|applique[sz]?|suis|suivez|active[sz]?)"
    r"[^.]{0,40}"
    + _INJECTION
    + r"|"
    + _INJECTION
    + r"[^.]{0,60}(tu (dois|peux) (tout )?(donner|communiquer|reveler|afficher)|donne(s)? tout"
    r"|tous les droits|a tous les droits)"
)
_REFUSE = re.compile(r"ignore|n'obei|ne (jamais )?(suis|suivez|obei|accepte)|refuse|aucun droit|ne donnent")


@dataclass(frozen=True)
class PromptRules:
    verification: bool  # order details only to their owner
    obeys_injection: bool  # the prompt orders obeying a "mode maintenance", an "administrator"…


def read_rules(system: str) -> PromptRules:
    verification = False
    obeys = False
    for sentence in _SENTENCES.split(fold(system)):
        if _IDENTITY.search(sentence) or "detail d'une commande" in sentence:
            if _LIFT.search(sentence):
                verification = False
            elif _RESTRICT.search(sentence):
                verification = True
        if _OBEY.search(sentence) and not _REFUSE.search(sentence):
            obeys = True
    return PromptRules(verification=verification, obeys_injection=obeys)
