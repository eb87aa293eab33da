"""The catalogue of what filon says (`miner/core/messages.toml`): every code said in both languages with
the same values, no French left in an English sentence, every code the code names present, and a sentence
read back from a report said as it was made."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from filon.miner.core.messages import Said, UnknownCode, as_said, catalogue, chained, one_of, render, said

ROOT = Path(__file__).resolve().parents[3]
# words only French uses: none may be left in an English sentence (the case format's own words aside)
FRENCH = re.compile(
    r"\b(outil|attendue?|obtenue?|tour|texte|état|règle|seuil|catégorie|Décision|Rapport|tentatives?|écart|"
    r"avis|consultati\w+|bloquante?|substitut|jetons|Coût|Latence|hors score|juge|simulateur|aucune?|"
    r"commande|cas|et|ou|sur|dans|pour|avec|n'a|pas|une?|les?|des?|du)\b"
)
# the case format's own words, and its French quoted as the case writes it
CASE_WORDS = re.compile(
    r"'bon'|trop strict|etat_final|proche_de|criteres|'texte'|si_reussi|« [^»]* »|< seuil|neither commande"
    r"|juge critere|'cas'|seuil: N|seuil \{threshold\}|echelle, seuil|not commande, email, tel|--[a-z_-]+|a juge check"
)
CODES = sorted(catalogue())


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", CODES)
def test_each_code_says_the_same_values_in_both_languages(code: str) -> None:
    entry = catalogue()[code]
    if code != "text.both":  # a value its data gives in both languages: each template takes its own
        assert _fields(entry["fr"]) == _fields(entry["en"]), code
    assert not FRENCH.search(CASE_WORDS.sub("", entry["en"])), entry["en"]


def _codes_named_in(folder: Path) -> set[str]:
    found = set()
    for path in folder.rglob("*.py"):
        found |= set(re.findall(r'\bsa(?:id|y)\(\s*f?"([a-z_]+\.[^"{]+)"', path.read_text(encoding="utf-8")))
    return found


def test_every_code_the_code_names_is_in_the_catalogue() -> None:
    named = set()
    for room in ("goldens", "miner", "filon/commands", "tui", "tracing", "agent"):
        named |= _codes_named_in(ROOT / room)
    assert len(named) > 60
    assert sorted(n for n in named if n not in catalogue() and not n.endswith(".")) == []


def test_a_sentence_renders_in_either_language_and_nests() -> None:
    gap = said("gap.missing_tool", tools=one_of(["a", said("tool.case_value", name="commande")]))
    at_turn = said("gap.at_turn", turn=2, gap=gap)
    assert str(at_turn) == "tour 2 : outil manquant : a ou <commande du cas>"
    assert at_turn.render("en") == "turn 2: missing tool: a or <the case's commande>"


def test_figures_take_each_language_s_format() -> None:
    rule = said("gate.under", score=0.75, threshold=0.9)
    assert str(rule) == "score 75.0% sous le seuil 90%"
    assert rule.render("en") == "score 75.0% under the threshold 90%"


def test_a_sentence_read_back_from_json_is_the_same_sentence() -> None:
    made = said(
        "gap.order",
        tool=said("tool.call", tool="t", args=[said("tool.arg", key="k", value="v")], done=""),
        before="x",
    )
    back = Said.model_validate_json(made.model_dump_json())
    assert back.render("en") == made.render("en") == "order not kept: t(k=v) expected after x"
    assert str(back) == str(made)


def test_chained_items_join_in_each_language() -> None:
    joined = chained(["a", said("tool.no_argument")], "text.then")
    assert render(joined, "fr") == "a ; (aucun argument)"
    assert render(joined, "en") == "a; (no argument)"
    assert chained([], "text.or") == ""


def test_a_plain_line_and_an_unknown_code() -> None:
    assert render("as written", "en") == "as written" and render(None, "en") == ""
    assert as_said({}, "sans code", "en") == "sans code"
    with pytest.raises(UnknownCode):
        said("gap.no_such_code")


def test_values_from_traces_are_carried_as_they_are() -> None:
    """A quoted text with braces or a format spec in it is a value, never a template."""
    gap = said("gap.forbidden_text", text="{0} {turn!r} %s")
    assert gap.render("en") == "forbidden text present: « {0} {turn!r} %s »"


def test_the_commands_say_their_lines_through_the_catalogue() -> None:
    """No command prints or fails with a sentence of its own: each line is a code (`common.say`), a value
    shown as it is (a path, a banner, a table), or markup around one."""
    literal = re.compile(r'\b(?:fail|print|rule|append)\(\s*f?"((?:[^"\\]|\\.)*)"')
    sentences = []
    for path in [*sorted((ROOT / "filon" / "commands").glob("*.py")), ROOT / "filon" / "cli.py"]:
        for found in literal.finditer(path.read_text(encoding="utf-8")):
            words = re.sub(r"\[/?[a-z ]*\]|\{[^}]*\}", "", found.group(1))  # markup and values left out
            if re.search(r"[A-Za-zé]{2,}", words.replace("error:", "")):
                sentences.append(f"{path.name}: {found.group(1)}")
    assert sentences == []


@pytest.mark.parametrize(
    "text",
    [
        "{",  # not JSON
        "[]",  # not an object
        '{"id": "x-01", "categorie": "faq", "tours": ["Bonjour"], "outil": ["a"]}',  # a field misspelt
        '{"id": "x-01", "categorie": "faq", "tours": ["Bonjour"]}',  # no check at all
        '{"id": "x-02", "categorie": "securite", "tours": ["Bonjour"], "contient": ["remboursé"]}',
    ],
)
def test_what_lint_finds_is_a_code_said_in_english_with_its_french_beside_it(text: str) -> None:
    from filon.goldens.set.caseset import parse_case

    _, problems = parse_case("x-01.json", text)
    assert problems
    for p in problems:
        assert p.said is not None and p.said.code in catalogue(), p
        assert p.message == p.said.render("en") and p.line("en").endswith(p.message)
        if p.said.code.startswith("lint."):
            assert p.said.render("fr") != p.message  # its French exists, for a French console
