"""The stand-in's embeddings (`embedContent`, `batchEmbedContents`): deterministic vectors, no model.

A bag of word stems and facts hashed into a fixed number of dimensions. Paraphrases land close because
the words a French support answer varies on are folded to one stem (accents, plurals, verb endings, a
short list of the trade's synonyms) and because figures are read the same whichever way they are
written (« 3,90 € », « 3.90€ », « 3 euros 90 »). Different facts land apart because each figure weighs
three words. Like real embeddings it is blind to negation: « ne … pas » carries no weight. It is a
stand-in: it says nothing of how Gemini's embeddings would score.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata

DIMENSIONS = 256
FACT_WEIGHT = 3.0

STOP = frozenset(
    [
        "a",
        "ai",
        "as",
        "au",
        "aux",
        "avec",
        "ce",
        "ces",
        "cet",
        "cette",
        "ci",
        "d",
        "de",
        "des",
        "du",
        "elle",
        "elles",
        "en",
        "est",
        "et",
        "etre",
        "il",
        "ils",
        "j",
        "je",
        "l",
        "la",
        "le",
        "les",
        "leur",
        "leurs",
        "lui",
        "m",
        "ma",
        "mais",
        "me",
        "mes",
        "moi",
        "mon",
        "n",
        "ne",
        "nos",
        "notre",
        "nous",
        "on",
        "ont",
        "ou",
        "par",
        "pas",
        "plus",
        "pour",
        "qu",
        "que",
        "qui",
        "s",
        "sa",
        "se",
        "ses",
        "si",
        "son",
        "sont",
        "sur",
        "t",
        "ta",
        "te",
        "tes",
        "toi",
        "ton",
        "tu",
        "un",
        "une",
        "vos",
        "votre",
        "vous",
        "y",
        "c",
        "ca",
        "cela",
        "il",
        "y",
        "bien",
        "tres",
        "aussi",
        "donc",
        "alors",
        "tout",
        "tous",
        "toute",
        "toutes",
    ]
)
NUMBER_WORDS = {
    "deux": "2", "trois": "3", "quatre": "4", "cinq": "5", "six": "6", "sept": "7", "huit": "8",
    "neuf": "9", "dix": "10", "quatorze": "14", "quinze": "15", "trente": "30", "soixante": "60",
}  # fmt: skip
# words the trade says in several ways, folded to one (stems after `_stem`)
SYNONYMS = {
    "expedi": "livr", "envoi": "livr", "achemin": "livr", "port": "livr",
    "rembours": "rend", "restitu": "rend", "rendu": "rend",
    "gratuit": "offert", "gratuite": "offert",
    "cout": "frai", "prix": "frai", "tarif": "frai", "factur": "frai", "montant": "frai",
    "paquet": "coli", "envoy": "livr",
    "renvoy": "retour", "retourn": "retour",
    "conseil": "conseill", "humain": "conseill", "agent": "conseill",
    "achat": "command",
}  # fmt: skip
MONEY = re.compile(r"(\d+)\s*(?:[.,]\s*(\d{1,2})\s*(?:€|eur(?:os?)?)|(?:€|eur(?:os?)?)\s*(\d{2})\b)")
NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
WORD = re.compile(r"[a-z0-9.]+")
SUFFIXES = ("ements", "ement", "ations", "ation", "ees", "ee", "es", "er", "ez", "ent", "s", "x", "e")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    return "".join(c for c in text if not unicodedata.combining(c)).replace("'", " ")


def _money(match: re.Match[str]) -> str:
    cents = match.group(2) or match.group(3)
    return f" {match.group(1)}.{cents} " if cents else f" {match.group(1)} "


def _stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    word = word[:7]
    return next((v for k, v in SYNONYMS.items() if word.startswith(k)), word)


def features(text: str) -> dict[str, float]:
    """The weighted features of a text: stems weigh 1, figures `FACT_WEIGHT`."""
    folded = MONEY.sub(_money, _fold(text).replace("€", " € "))
    out: dict[str, float] = {}
    for word in WORD.findall(folded):
        word = word.strip(".")
        if not word or word in STOP:
            continue
        word = NUMBER_WORDS.get(word, word)
        if NUMBER.fullmatch(word):
            key, weight = "#" + word.replace(",", ".").removesuffix(".00"), FACT_WEIGHT
        elif len(word) < 3:
            continue
        else:
            key, weight = _stem(word), 1.0
        out[key] = out.get(key, 0.0) + weight
    return out


def _slot(key: str) -> tuple[int, float]:
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return int.from_bytes(digest[:4], "big") % DIMENSIONS, (1.0 if digest[4] & 1 else -1.0)


def embed(text: str) -> list[float]:
    """A unit vector; the same text gives the same vector on every machine and every run."""
    vector = [0.0] * DIMENSIONS
    for key, weight in features(text).items():
        index, sign = _slot(key)
        vector[index] += sign * weight
    norm = math.sqrt(sum(v * v for v in vector))
    return [round(v / norm, 6) for v in vector] if norm else vector
