"""filon's text folding, for flags and the grader: no case, no accents, straight apostrophes, plain spaces.

The agent has its own (`agent/text.py`): it is the product under observation, and filon's judgement of
its words must not depend on the agent's code. Folding runs on every turn the sampler decides, so it is
C routines only: `str.lower` for ASCII; for Latin text, NFKD then ASCII; for anything else (a euro sign,
guillemets, another script), NFKD then one regex for the combining marks. The tests hold it to the
definition: a table of the Latin letters to their base, lower case, NFKD without combining marks."""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

from text_to_num import alpha2digit

_PUNCT = {
    "’": "'",
    "‘": "'",
    "ʼ": "'",
    "\u00a0": " ",
    "\u202f": " ",
    "œ": "oe",
    "Œ": "oe",
    "æ": "ae",
    "Æ": "ae",
}

# after lower-casing: the characters `_PUNCT` maps, and the Latin letters NFKD splits into ASCII and accents
_SPECIAL = tuple((k, v) for k, v in _PUNCT.items() if k == k.lower())
_ACCENTED = "".join(
    chr(c)
    for c in range(0xC0, 0x250)
    if chr(c) not in _PUNCT
    and all(x.isascii() or unicodedata.combining(x) for x in unicodedata.normalize("NFKD", chr(c)))
    and not unicodedata.normalize("NFKD", chr(c)).isascii()
)
_OTHER = re.compile(f"[^\\x00-\\x7f{re.escape(_ACCENTED)}]")


FOLDED_KEPT = 1024  # texts whose folding is kept, each under FOLDED_CHARS: with their foldings,
FOLDED_CHARS = 2048  # 4 MB of Latin text at most, 16 MB of four-byte characters


def fold(text: str) -> str:
    """`text` folded; a short non-ASCII text's folding kept while a conversation is flagged (each rule
    folds the same answer and the same customer words again: on the agent's French spans, 1,944 such
    foldings of 643 texts, counted conversation by conversation). The flag rules forget what is kept
    at each conversation's start (`forget_folded`), so no reading leans on another conversation's
    texts; elsewhere `FOLDED_KEPT` bounds it."""
    if text.isascii():
        return text.lower()
    if len(text) < FOLDED_CHARS:
        return _kept_fold(text)
    return _fold(text)


@lru_cache(maxsize=FOLDED_KEPT)
def _kept_fold(text: str) -> str:
    return _fold(text)


def forget_folded() -> None:
    """The foldings kept so far forgotten: at each conversation the flag rules read, and between
    benchmarks' rounds of the same texts."""
    _kept_fold.cache_clear()


def _fold(text: str) -> str:
    out = text.lower()
    if _OTHER.search(out) is not None:  # a character NFKD does not bring to ASCII: typographic first
        for special, plain in _SPECIAL:
            if special in out:
                out = out.replace(special, plain)
        if _OTHER.search(out) is not None:
            return _without_marks(unicodedata.normalize("NFKD", out))
    # French and most Latin text: C routines only
    return unicodedata.normalize("NFKD", out).encode("ascii", "ignore").decode("ascii")


def _without_marks(text: str) -> str:
    """`text` without the characters whose combining class is not 0: one regex for those of the Basic
    Multilingual Plane (a bitmap the regex engine tests in constant time, where a test per character in
    Python costs ten times as much), then a look at each character beyond it, if any."""
    return _ASTRAL.sub(_astral_mark, _bmp_marks().sub("", text))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _astral_mark(m: re.Match[str]) -> str:
    return "" if unicodedata.combining(m.group()) else m.group()


@cache
def _bmp_marks() -> re.Pattern[str]:
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if unicodedata.combining(chr(code)):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")


def norm(text: str) -> str:
    """`fold`, with runs of white space made one space: what text checks compare."""
    return " ".join(fold(text).split())


_FAMILIAR = re.compile(r"\b(?:tu|te|ton|ta|tes)\b|(?<![\w'])t'")
_FAMILIAR_HINTS = (" tu", " te", " ton", " ta", " tes", "t'")
_FORMAL = {"tu": "vous", "te": "vous", "ton": "votre", "ta": "votre", "tes": "vos", "t'": "vous "}


def formal(folded: str) -> str:
    """Folded French said to « tu » said to « vous » (« je te rembourse » → « je vous rembourse », « je t'offre
    » → « je vous offre »): an agent on WhatsApp speaks as its customer does, and the phrases the rules know
    are written once."""
    padded = f" {folded}"
    if not any(w in padded for w in _FAMILIAR_HINTS):  # most answers say « vous »: no regex pass
        return folded
    return _FAMILIAR.sub(lambda m: _FORMAL[m.group()], folded)


@lru_cache(maxsize=4096)
def comparable(text: str, lang: str = "fr") -> str:
    """`norm` of the text with every French number written in words as digits (« vingt-quatre mois » →
    « 24 mois », « un an » → « 1 an », « première » → « 1ère »), by text2num, read before accents are
    folded and with elisions split (« d'un an » → « d' 1 an »); the same on a check's text and on the
    answer's, so both meet in one spelling. The grader's text checks and the rulebook's facts read it.
    `lang` "en": English number words (« three days » → « 3 days »), no elision to split."""
    if lang == "en":
        return norm(str(alpha2digit(text.lower().replace("’", "'"), "en", threshold=0)))
    spaced = text.lower().replace("’", "'").replace("'", "' ")
    return norm(str(alpha2digit(spaced, "fr", threshold=0)))


_DIGIT = re.compile(r"\d")


def has_digit(text: str) -> bool:
    """Whether `text` holds a digit of any script (`\\d`): the readings that need a figure are skipped
    without one, in the answer (`facts_fr`, `facts_en`) as in what the agent saw (`seen_strings`)."""
    return _DIGIT.search(text) is not None
