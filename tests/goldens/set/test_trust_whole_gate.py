"""`filon goldens trust` as CI's whole gate decides: the calibrated judge asked too (`--judge`, the stand-in
in tests), reported apart; which kind of check failed each good answer; and text checks that hold another
good wording (an adverb inside a phrase), with lint's neutral mutants trying the insertion."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from tests.conftest import REPO, copy_set

runner = CliRunner()
CASES = REPO / "goldens" / "cases"


def trust(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["goldens", "trust", "--json", *args, str(CASES)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_judge_is_in_the_whole_gate_s_figure_reported_apart() -> None:
    plain = trust()
    assert "avec_juge" not in plain and plain["laisses_au_juge"] > 0  # type: ignore[operator]
    judged = trust("--judge", "--backend", "scripted")
    whole = judged["avec_juge"]
    assert whole["mauvais"] == plain["ensemble"]["mauvais"] + plain["laisses_au_juge"]  # type: ignore[index, operator]
    assert whole["ment"] < plain["laisses_au_juge"]  # type: ignore[index, operator]  # the judge rejects most of them
    said = runner.invoke(app, ["goldens", "trust", "--judge", "--backend", "scripted", str(CASES)])
    assert "with the judge" in said.stdout


def test_which_check_failed_each_good_answer(tmp_path: Path) -> None:
    rows = [
        {"case": "faq-07", "verdict": "bon", "reponse": ["Oui, nous livrons la Martinique pour 9,90 €."]},
        {
            "case": "faq-07",
            "verdict": "bon",
            "reponse": ["La Martinique ne fait pas encore partie des zones livrées."],
        },
    ]
    table = tmp_path / "t.json"
    table.write_text(json.dumps(rows))
    doc = trust("--table", str(table))
    assert doc["ensemble"]["crie_au_loup"] == 1  # type: ignore[index]  # the second: an adverb inside is still good
    assert doc["bons_echoues_par_controle"] == {"texte_manquant": 1}


def test_lint_s_neutral_mutants_name_a_check_too_literal(tmp_path: Path) -> None:
    cases = copy_set(tmp_path / "cases")
    case = json.loads((cases / "faq-07.json").read_text())
    case["contient"] = ["ne sont pas desservis"]  # one answer's words, with its adverb-free form only
    case["exemples"] = [e for e in case["exemples"] if e["verdict"] == "mauvais"] + [
        {"verdict": "bon", "reponse": "Les départements d'outre-mer ne sont pas desservis, hélas."}
    ]
    (cases / "faq-07.json").write_text(json.dumps(case))
    said = runner.invoke(app, ["goldens", "lint", "--mutants", str(cases)])
    assert "neutral mutant rejected" not in said.stdout  # an adverb inside a `contient` phrase still holds
    from filon.goldens.set.mutants_neutral import insertions

    edits = [edited for _, edited, _ in insertions(case["exemples"][-1]["reponse"])]
    assert "Les départements d'outre-mer ne sont pas encore desservis, hélas." in edits  # what lint tried
    shutil.rmtree(cases)
