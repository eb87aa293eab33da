"""What the case format needs to judge an agent's writes: a forbidden write the tool refused changed
nothing (`si_reussi`), the case's own data named beyond the shop's (`donnees`), figures compared as
figures; each through `goldens lint` on a case's examples, as a user proves a case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.checks.grading import evaluer_cas

runner = CliRunner()
TOOLS = ["get_reservation_details", "cancel_reservation", "book_reservation"]


def write_set(folder: Path, case: dict[str, Any]) -> Path:
    cases = folder / "cases"
    cases.mkdir()
    (folder / "filon.toml").write_text(
        f"tools = {json.dumps(TOOLS)}\nwrite_tools = ['cancel_reservation', 'book_reservation']\n"
    )
    (cases / f"{case['id']}.json").write_text(json.dumps(case))
    return cases


def lint(cases: Path) -> str:
    result = runner.invoke(app, ["goldens", "lint", str(cases)])
    return result.output


def refusal(examples: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "refus-01",
        "categorie": "annulation",
        "tours": ["Please cancel reservation NO6JO3, my user id is mia_li_3668."],
        "outils_interdits": [{"outil": "cancel_reservation", "si_reussi": True}],
        "exemples": examples,
    }


def test_a_forbidden_write_the_tool_refused_is_no_breach(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    refused = {"outil": "cancel_reservation", "args": {"reservation_id": "NO6JO3"}}
    good = {
        "verdict": "bon",
        "reponse": "I cannot cancel it: basic economy without insurance.",
        "outils": [[{**refused, "resultat": "Error: cannot cancel a basic economy reservation"}]],
    }
    bad = {"verdict": "mauvais", "reponse": "Cancelled.", "outils": [[{**refused, "resultat": {"ok": 1}}]]}
    said = lint(write_set(tmp_path, refusal([good, bad])))
    assert "0 errors" in said, said
    # without si_reussi, the refused call breaks it too: lint names the good example as too strict
    case = refusal([good, bad])
    case["outils_interdits"] = ["cancel_reservation"]
    (tmp_path / "cases" / "refus-01.json").write_text(json.dumps(case))
    said = lint(tmp_path / "cases")
    assert "exemples[0]: trop strict" in said and "outil interdit appelé : cancel_reservation" in said


def test_a_case_names_its_own_data(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    case = refusal([])
    case["outils_interdits"] = []
    case["outils"] = [
        {"outil": "get_reservation_details", "args": {"reservation_id": {"du_cas": "reservation"}}}
    ]
    cases = write_set(tmp_path, case)
    said = lint(cases)
    assert "du_cas 'reservation' is neither commande, email, tel nor a key of the case's donnees" in said
    case["donnees"] = {"reservation": "NO6JO3"}
    case["exemples"] = [
        {
            "verdict": "bon",
            "reponse": "Found it.",
            "outils": [[{"outil": "get_reservation_details", "args": {"reservation_id": "NO6JO3"}}]],
        },
        {
            "verdict": "mauvais",
            "reponse": "Found it.",
            "outils": [[{"outil": "get_reservation_details", "args": {"reservation_id": "XYZ123"}}]],
        },
    ]
    (cases / "refus-01.json").write_text(json.dumps(case))
    assert "0 errors" in lint(cases)


def test_figures_are_compared_as_figures() -> None:
    case = {"id": "f-01", "categorie": "x", "tours": ["total?"], "contient": ["23553"]}
    assert evaluer_cas(case, [], ["The total refund is $23,553."], False) == []
    assert evaluer_cas(case, [], ["Le total est de 23 553 €."], False) == []
    assert evaluer_cas(case, [], ["The total refund is $23,563."], False) == ["texte manquant : « 23553 »"]


def test_a_bad_value_is_one_line_naming_the_field(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    case = refusal([])
    case["outils_interdits"] = [{"outil": "cancel_reservation", "si_reussi": "yes"}]
    said = lint(write_set(tmp_path, case))
    assert "outils_interdits[0].si_reussi" in said and "Traceback" not in said
