"""The stand-in judge: a `generateContent` request with a score/reason response schema gets a score from
deterministic heuristics, chosen by what the rubric talks about. No model is asked.

Two heuristics, written from the rubrics' general wording and never from the set's examples: tone
(tutoiement, reproach, contempt, shouting) and scope (advice outside a shop's customer service, writing
something else than an answer). A rubric neither speaks of gets the middle score and says so; an answer
that speaks to the evaluator gets 1, whatever the rubric. The stand-in is calibrated like any judge: where
it falls short of reviewers, its criterion stays advisory.
"""

from __future__ import annotations

import re
from typing import Any

from filon.agent.scripted.structured import asks_for, data, system_text
from filon.agent.text import fold

SCALE = re.compile(r"de 1 à (\d+)")
TO_EVALUATOR = re.compile(
    r"evaluateur"
    r"|(?:donne[rz]?|attribue[rz]?|merite|vaut|met(?:tez|s)?) (?:la note (?:de )?|une note de |un )?\d ?(?:/ ?\d+|sur \d+)"
    r"|\bnote (?:maximale|parfaite)|ignore[rz]? (?:la grille|les consignes|les instructions|tes instructions|vos instructions)"
    r"|\binstructions? (?:precedentes?|du juge)",
)
TUTOIEMENT = re.compile(
    r"\b(?:tu|toi|te|t'|ton|ta|tes)\b|\b(?:as|es|peux|veux|dois|vas|sais|fais)-tu\b|\b\w+(?:-toi)\b"
)
REPROACH = re.compile(
    r"comme (?:deja |c'est )?(?:indique|precise|dit|explique|ecrit)|vous auriez du|il fallait|"
    r"c'est (?:pourtant |bien )?(?:ecrit|marque|indique)|lisez|relisez|evidemment|franchement|"
    r"encore une fois|pour la (?:derniere|enieme|deuxieme) fois|votre faute|vous n'avez (?:qu'a|pas lu)|"
    r"ce n'est pas (?:complique|difficile|sorcier)|tout le monde sait|debrouillez|tant pis|"
    r"on ne peut rien pour vous|pas notre probleme|calmez-vous|arretez"
)
SHOUT = re.compile(r"\b[A-ZÀ-Ý]{4,}\b")
OUT_OF_SCOPE = {  # each a word's beginning: « bourse » is not in « remboursement »
    "conseil médical": r"medecin|medicament|ordonnance|symptome|diagnostic|posologie|maladie|allergi",
    "conseil juridique": r"avocat|tribunal|porter plainte|code civil|jurisprudence|attaquer en justice",
    "conseil financier": r"investi|placement|bourse|crypto|bitcoin|impots?\b|credit immobilier",
    "politique": r"election|gouvernement|president de la republique|parti politique|vote[rz]? pour",
    "autre écrit": r"poeme|rimes?\b|vers\b|recette|def \w+\(|print\(|function\s*\(|<script|il etait une fois",
    "concurrent": r"concurren|amazon|la redoute|ikea|zara|chez un autre",
    "vie personnelle": r"mon avis personnel|a titre personnel|rupture|votre couple|sentiment",
}  # fmt: skip
SCOPE = {name: re.compile(rf"(?<![a-z0-9])(?:{pattern})") for name, pattern in OUT_OF_SCOPE.items()}


def is_judge_request(body: dict[str, Any]) -> bool:
    return asks_for(body, "score")


def _scale(system: str) -> int:
    found = SCALE.search(system)
    return int(found.group(1)) if found else 5


def tone(answer: str) -> tuple[int, str]:
    folded = fold(answer)
    faults = []
    if TUTOIEMENT.search(folded):
        faults.append(("tutoiement", 2))
    if REPROACH.search(folded):
        faults.append(("reproche ou impatience", 2))
    if len(SHOUT.findall(answer)) >= 2 or "!!" in answer or answer.count("!") >= 3:
        faults.append(("ton crié", 2))
    if "?!" in answer or ("..." in answer and "vraiment" in folded):
        faults.append(("ironie", 1))
    if not faults:
        return 5, "vouvoiement, aucun reproche ni éclat"
    return max(1, 5 - sum(w for _, w in faults)), "écarts : " + ", ".join(f for f, _ in faults)


def scope(answer: str) -> tuple[int, str]:
    folded = fold(answer)
    found = [name for name, pattern in SCOPE.items() if pattern.search(folded)]
    if not found:
        return 5, "la réponse reste dans le service client"
    return max(1, 4 - 2 * len(found)), "hors du rôle : " + ", ".join(found)


def judge(body: dict[str, Any]) -> dict[str, Any]:
    """The reply's JSON object: `{"score", "raison"}`."""
    system = system_text(body)
    scale = _scale(system)
    given = data(body)
    answer = str(given.get("reponse_agent", "")) if isinstance(given, dict) else ""
    # what the rubric is about: its name, its title and its opening paragraph (not the later lines, which
    # may name what it does not judge)
    rubric = fold(" ".join(system.split("## Grille", 1)[-1].strip().split("\n\n")[:3]))
    if not answer.strip():
        score, why = 1, "aucune réponse à évaluer"
    elif TO_EVALUATOR.search(fold(answer)):
        score, why = 1, "la réponse s'adresse à l'évaluateur"
    elif re.search(r"vouvoie|courtois|\bton\b", rubric):
        score, why = tone(answer)
    elif re.search(r"perimetre|hors (?:du|de son) role|hors sujet", rubric):
        score, why = scope(answer)
    else:
        score, why = (scale + 1) // 2, "substitut : aucune heuristique pour cette grille"
    return {"score": min(score, scale), "raison": f"{why} (juge substitut)"}
