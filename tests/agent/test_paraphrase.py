"""The stand-in's paraphrase mode: the words change, the facts do not.

The facts are read by an oracle written here, apart from the paraphraser's own patterns: numbers in
digits or French words, amounts in every form ("4,90 €", "4.90€", "4 euros 90"), order numbers, and the
statuses the stand-in quotes between « ».
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from importlib import resources
from typing import Any

import pytest

from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.agent.scripted import ScriptedModel, ScriptedSettings
from filon.agent.scripted.paraphrase import Paraphraser
from filon.agent.service import Conversation, SupportService
from tests.agent.test_phrasings import load

WORDS = {
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
    "quatorze": 14, "quinze": 15, "vingt": 20, "trente": 30, "quarante": 40, "soixante": 60, "cent": 100,
    "cent cinquante": 150, "deux cents": 200,
}  # fmt: skip
AMOUNT = re.compile(r"(\d+)(?:[,.](\d{2})\s?(?:€|euros?)|\s?(?:€|euros?)(?:\s(\d{2})\b)?)")
NUMBER = re.compile(r"(?<![\w,.])\d+(?:[,.]\d+)?(?![\d])")
ORDER = re.compile(r"LL-\d{5}")
STATUS = re.compile(r"« ([^»]+) »")


def numbers(text: str) -> Counter[float]:
    """Every quantity in the text, amounts read whole ("3 euros 90" is 3.9); 1 is left out (un, une)."""
    found: Counter[float] = Counter()
    rest = text
    for m in AMOUNT.finditer(text):
        cents = m.group(2) or m.group(3) or "0"
        found[round(int(m.group(1)) + int(cents) / 100, 2)] += 1
        rest = rest.replace(m.group(0), " ", 1)
    for m in NUMBER.finditer(rest):
        found[float(m.group(0).replace(",", "."))] += 1
    lowered = f" {rest.lower()} "
    for word, value in sorted(WORDS.items(), key=lambda kv: -len(kv[0])):
        hits = len(re.findall(rf"(?<![\w-]){word}(?![\w-])", lowered))
        if hits:
            found[float(value)] += hits
            lowered = re.sub(rf"(?<![\w-]){word}(?![\w-])", " ", lowered)
    found.pop(1.0, None)
    return +found


def facts(text: str) -> tuple[set[float], list[str], list[str]]:
    return set(numbers(text)), sorted(ORDER.findall(text)), sorted(STATUS.findall(text))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def table() -> dict[str, list[str]]:
    text = resources.files("filon.agent.scripted").joinpath("paraphrases.json").read_text(encoding="utf-8")
    data: dict[str, list[str]] = json.loads(text)
    return data


@pytest.mark.parametrize("sentence", sorted(table()))
def test_each_policy_paraphrase_keeps_the_numbers(sentence: str) -> None:
    for paraphrase in table()[sentence]:
        assert paraphrase != sentence
        assert set(numbers(paraphrase)) == set(numbers(sentence)), (sentence, paraphrase)


def answers(url: str) -> list[str]:
    """The agent's answers to varied customers: the dev phrasings and every golden case's turns."""
    from filon.goldens.set.caseset import load_set

    out = []
    messages: list[dict[str, Any]] = load("dev") + load("dev2")
    for case in load_set().cases:
        messages.append({"message": case.tours[-1], "canal": case.canal, "tel": case.tel})
    for item in messages:
        service = SupportService(scripted_client(url), SCRIPTED_MODEL)
        if item.get("canal") == "whatsapp":
            conversation = Conversation.whatsapp(str(item["tel"]))
        else:
            conversation = Conversation.web(uuid.uuid5(uuid.NAMESPACE_URL, item["message"]).hex)
        out.append(service.repondre(conversation, item["message"]).texte)
    return out


@pytest.fixture(scope="module")
def both() -> tuple[list[str], list[str]]:
    with (
        ScriptedModel(ScriptedSettings(seed=7)) as verbatim,
        ScriptedModel(ScriptedSettings(seed=7, paraphrase=True)) as reworded,
    ):
        return answers(verbatim.url), answers(reworded.url)


def test_facts_survive_and_the_wording_changes(both: tuple[list[str], list[str]]) -> None:
    plain, reworded = both
    assert len(plain) == len(reworded) >= 90
    differ = total = 0
    for before, after in zip(plain, reworded, strict=True):
        assert facts(after) == facts(before), (before, after)
        kept = set(sentences(before))
        for sentence in sentences(after):
            total += 1
            differ += sentence not in kept
    assert differ / total >= 0.8, f"only {differ}/{total} sentences reworded"


def test_paraphrase_is_deterministic_per_seed_and_text() -> None:
    text = "Votre commande LL-10568 a le statut « livrée ». Montant des articles : 56,00 €, frais de port : 3,90 €."
    assert Paraphraser(3)(text) == Paraphraser(3)(text)
    assert len({Paraphraser(seed)(text) for seed in range(12)}) > 1
    assert facts(Paraphraser(5)(text)) == facts(text)
