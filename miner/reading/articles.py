"""Articles an answer names, held to the articles the agent read: « votre écharpe en laine » told of an
order whose lookup holds a « Pull en lin » (three fresh reviewers' tables, K to M, each had one such answer
pass every check). An article is named as clothes and linen are, a noun and its material (« pull en lin »,
« linen shirt » is not read); it is checked only once the agent read some article so named (a lookup's
lines, the customer's own words): an answer about the shop's products in general reports no order.
Pure functions over folded text."""

from __future__ import annotations

from filon.miner.reading.folded import folded

MATERIALS = (
    "laine", "lin", "coton", "alpaga", "cachemire", "soie", "merinos", "chanvre", "velours", "cuir",
    "mohair", "angora", "flanelle", "gaze", "jersey", "denim", "viscose", "polyester",
)  # fmt: skip
_MATERIAL = "|".join(MATERIALS)
# a noun and its material (« pull en laine merinos »); named by the answer after a determiner (« votre pull en
# laine », « les deux chemises en lin », « un plaid en laine mérinos »)
_ARTICLE = rf"([a-z]{{3,}}) en ((?:{_MATERIAL})(?: (?:{_MATERIAL}))?)\b"
_NAMED = folded(
    rf"\b(?:votre|vos|ton|ta|tes|le|la|les|l'|du|des|un|une|deux|trois|\d+)\s*(?:[a-z]+ )?{_ARTICLE}"
)
# what every article named holds, « en » and a material: a search that begins with a word, not at every
# determiner, five times faster, and most answers have none
_EN_MATERIAL = folded(rf"en (?:{_MATERIAL})\b")
# words of a kind, not an article: « une pièce en lin », « nos vêtements en laine » (table G's good answer)
_GENERIC = frozenset(
    ("piece", "article", "vetement", "produit", "tissu", "modele", "linge", "matiere", "fibre", "collection")
)
_READ = folded(rf"\b{_ARTICLE}")


def _noun(noun: str) -> str:
    """A noun in the singular (« chemises » is « chemise »)."""
    return noun.removesuffix("s").removesuffix("x")


def read_articles(reported: str) -> set[tuple[str, str]]:
    """The articles a folded text names: (noun, material), each of its materials (« pull en laine
    merinos » is a wool pull and a merino one)."""
    return {(_noun(m.group(1)), w) for m in _READ.finditer(reported) for w in m.group(2).split()}


def unread_articles(folded: str, read: set[tuple[str, str]]) -> list[str]:
    """The articles a folded answer names that the agent read nowhere, as the answer says them; none when
    it read no article at all."""
    if not read or _EN_MATERIAL.search(folded) is None:
        return []
    out = []
    for m in _NAMED.finditer(folded):
        if _noun(m.group(1)) in _GENERIC:
            continue
        if any((_noun(m.group(1)), w) not in read for w in m.group(2).split()):
            out.append(f"{m.group(1)} en {m.group(2)}")
    return out


def names_an_article(folded: str) -> bool:
    return _EN_MATERIAL.search(folded) is not None and _NAMED.search(folded) is not None
