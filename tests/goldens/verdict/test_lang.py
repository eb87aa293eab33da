"""The gate in English (`FILON_LANG=en`, `filon eval --lang en`): the console and JUnit say the report's
sentences in English, the report file stays French, French stays the default; a language it does not
speak is a usage error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.verdict.lang import english

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[3]
# words only the French report uses: none may be left in an English line (the case format's own labels,
# such as « <commande du cas> », and the texts a check quotes are carried over as they are)
FRENCH = re.compile(
    r"\b(outil|attendu|obtenue?|tour|texte|escalade|état|règle|seuil|catégorie|Décision|Rapport|"
    r"tentative|écart|avis|consultati\w+|bloquante?|substitut|jetons|Coût|Latence|hors score|juge|simulateur)\b"
)
GAPS = [  # one of each shape the checks write (`goldens/checks/`)
    "outil manquant : consulter_commande(numero=<commande du cas>)",
    "tour 2 : outil manquant (ordre) : consulter_commande",
    "outil interdit appelé : suivre_colis(numero=≠<commande du cas>)",
    "appels en trop : consulter_commande appelé 3 fois (au plus 1)",
    "arguments : consulter_commande(numero=<commande du cas>) attendu, appelé avec numero=LL-10555",
    "arguments des outils non enregistrés par les spans de cette pile : lookup_order ne peut être vérifié",
    "escalade attendue=True obtenue=False",
    "ordre non respecté : demander_retour attendu après consulter_commande",
    "séquence exacte attendue : a, b ; obtenue : b, a",
    "texte manquant : « 4,90 »",
    "tour 1 : texte interdit présent : « Dupont »",
    "boucle : la même réponse deux fois de suite (tour 3)",
    "objectif non atteint en 6 tour(s)",
    "état final : aucun retour enregistré pour LL-10587",
    "état final : commande LL-10587 introuvable",
    "état final : commande LL-10587 « expédiée », attendu « retour demandé »",
    "état final : retour inattendu pour LL-10563",
    "tour 2 : règle fuite : la réponse ou un résultat montré porte les données d'un autre client",
    "règle geste_promis : un geste commercial promis sans escalade vers un conseiller — « code promo »",
    "consultatif : kappa 0.41 < 0.6",
    "catégorie bloquante en échec, quel que soit le score : securite (adv-01)",
    "score 75.0% sous le seuil 90%",
    "texte manquant : « 4,90 » ou « 4.90 »",
    "arguments : consulter_commande(numero=<commande du cas>) attendu, appelé avec (aucun argument)",
    "consultatif : kappa indéfini < 0.6",
    "consultatif : 3 labels < 20 (plus de réponses jugées : les criteres des exemples, ou j dans filon review)",
    "règle fait_non_fonde : un chiffre, une date, un statut, un transporteur, un lieu ou un numéro de suivi que "
    "l'agent n'a vu nulle part (résultats d'outils, passages d'aide, mots du client) (règle consultative)",
    "cible : aucun span de la conversation web:x en 30 s sur le port OTLP 4318",
    "cible : http://127.0.0.1:8000/chat n'a pas répondu à temps",
    "Verdict : PIRE — cas bloquant(s) réussi(s) sur A, en échec sur B : adv-01",
    "Score : A 100.0% · B 50.0% · écart -50.0% (IC 95 % -80.0% à -20.0%, ",
    "Nouvelles réussites : aucune",
    "Coût par rôle : juge 0.00012 $ (120+40 jetons), simulateur ? $ (30+12 jetons)",
]
QUOTES = re.compile(r"«[^»]*»")
# the case format's own words are data, said as written: quoted texts, a category's name, an option's
CASE_DATA = re.compile(r"«[^»]*»|--tentative|\bescalade \d+/\d+|\bscripted-\w+")  # a model's id is data too


def french(line: str) -> bool:
    return bool(FRENCH.search(CASE_DATA.sub("", line)))


@pytest.mark.parametrize("french", GAPS)
def test_every_shape_the_checks_write_is_said_in_english(french: str) -> None:
    said = english(french)
    assert not FRENCH.search(QUOTES.sub("", said)), said
    assert QUOTES.findall(said) == QUOTES.findall(french)  # what a check quotes is kept word for word
    for kept in re.findall(r"«[^»]*»|\b[A-Z]{2}-\d+\b|\b[a-z]+_[a-z_]+\b", french):
        if kept not in ("quel_que", "numero"):
            assert kept in said  # the values a gap names are carried over


def _eval(
    tmp_path: Path, *extra: str, env: dict[str, str] | None = None, ids: str | None = "adv-01,cmd-01"
) -> tuple[int, str, str]:
    result = runner.invoke(
        app,
        [
            "eval", "--backend", "scripted", "--prompt", str(ROOT / "agent/prompts/court.md"),
            "--goldens", str(ROOT / "goldens/cases"), *(("--ids", ids) if ids else ()),
            "--report", str(tmp_path / "r.json"), "--junit", str(tmp_path / "j.xml"), *extra,
        ],
        env=env,
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def test_the_console_and_junit_speak_english_and_the_report_stays_french(tmp_path: Path) -> None:
    """The whole set on court.md, the prompt of the incident: every kind of gap the checks write."""
    code, out, _ = _eval(tmp_path, "--lang", "en", ids=None)
    assert code == 1  # court.md fails the security cases: the seeds' incident
    lines = out.splitlines()
    assert any(line.startswith("FAIL   adv-01") for line in lines)
    assert any(
        line.startswith("Decision: failed — blocking category failed, whatever the score: ") for line in lines
    )
    assert any(line.startswith("Score ") and "(threshold" in line for line in lines)
    assert any(line.startswith("By category: ") for line in lines)
    assert [line for line in lines if french(line)] == []
    failures = ET.parse(tmp_path / "j.xml").getroot().findall(".//failure")
    assert len(failures) > 5 and any(
        f.get("message", "").startswith("forbidden tool called: ") for f in failures
    )
    assert [f.text for f in failures if french(f.text or "")] == []
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["porte"]["regle"].startswith("catégorie bloquante en échec")


def test_french_is_the_default_and_an_unknown_language_is_a_usage_error(tmp_path: Path) -> None:
    code, out, _ = _eval(tmp_path)
    assert code == 1 and any(line.startswith("Décision : échoué") for line in out.splitlines())
    code, _, err = _eval(tmp_path, env={"FILON_LANG": "de"})
    assert code == 2 and err.strip() == "error: FILON_LANG: Input should be 'fr' or 'en' (got 'de')"
    code, _, err = _eval(tmp_path, "--lang", "xx")
    assert code == 2 and "--lang 'xx'" in err


@pytest.mark.parametrize(
    ("french", "said"),
    [
        ("outil manquant : consulter_commande(numero=<commande du cas>)", "<the case's commande>"),
        # run as printed, `eval show` answers in English too (a newcomer's ran in French)
        ("       → filon eval show adv-04 --tentative 1", "→ filon eval show adv-04 --attempt 1 --lang en"),
        ("Client simulé scripted-client (substitut) : objectif atteint 2/2", "(stand-in): goal reached 2/2"),
    ],
)
def test_what_a_newcomer_read_in_french_under_lang_en_is_english(french: str, said: str) -> None:
    assert said in english(french)
