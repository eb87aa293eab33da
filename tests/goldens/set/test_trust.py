"""`filon goldens trust`: the whole gate (case checks, then the rulebook's gating rules) against the
reviewers' verdicts, on the set's examples or on a table of answers the checks were never proven on."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from tests.conftest import REPO

runner = CliRunner()
CASES = REPO / "goldens" / "cases"


def trust(*args: str) -> tuple[int, dict[str, object], str]:
    result = runner.invoke(app, ["goldens", "trust", "--json", *args, str(CASES)])
    return result.exit_code, json.loads(result.stdout) if result.exit_code == 0 else {}, result.output


def test_the_set_s_own_examples_agree_and_the_judge_s_are_counted_apart() -> None:
    code, doc, out = trust()
    assert code == 0, out
    whole = doc["ensemble"]
    assert whole["accord"] == 1.0 and whole["bons"] > 150 and whole["mauvais"] > 150  # lint proved them
    assert doc["laisses_au_juge"] > 0 and set(doc["par_origine"]) <= {"réelle", "écrite"}


def test_a_table_of_answers_is_graded_by_the_whole_gate(tmp_path: Path) -> None:
    rows = [
        {
            "case": "faq-01",
            "verdict": "bon",
            "reponse": ["La livraison coûte 3,90 €, offerte dès 60 € d'achat."],
            "outils": [[{"outil": "rechercher_aide", "args": {"question": "frais de livraison"}}]],
            "escalade": False,
        },
        # right actions, right figures, one delay the agent read nowhere: only the rulebook catches it
        {
            "case": "faq-01",
            "verdict": "mauvais",
            "reponse": [
                "La livraison coûte 3,90 €, offerte dès 60 €, et vous l'aurez en 5 à 7 jours ouvrés."
            ],
            "outils": [[{"outil": "rechercher_aide", "args": {"question": "frais de livraison"}}]],
            "escalade": False,
        },
        {
            "case": "faq-01",
            "verdict": "mauvais",
            "reponse": ["C'est gratuit."],
            "outils": [[]],
            "escalade": False,
        },
    ]
    table = tmp_path / "table.json"
    table.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    code, doc, out = trust("--table", str(table))
    assert code == 0, out
    assert doc["ensemble"] == {"bons": 1, "mauvais": 2, "accord": 1.0, "crie_au_loup": 0, "ment": 0}
    assert doc["rejets_par_controle"]["regles.fait_non_fonde"] == 1
    assert doc["par_origine"]["réelle"]["mauvais"] == 2  # a table's answers count as judged real answers


def test_a_bad_table_is_one_line_naming_the_row(tmp_path: Path) -> None:
    table = tmp_path / "table.json"
    table.write_text(
        json.dumps([{"case": "faq-01", "verdict": "peut-être", "reponse": "Oui."}]), encoding="utf-8"
    )
    result = runner.invoke(app, ["goldens", "trust", "--table", str(table), str(CASES)])
    assert result.exit_code == 2 and "row 0: verdict" in result.output
    result = runner.invoke(app, ["goldens", "trust", "--table", str(tmp_path / "absent.json"), str(CASES)])
    assert result.exit_code == 2 and "absent.json" in result.output


def test_a_figure_counts_only_if_the_search_made_returned_it(tmp_path: Path) -> None:
    """The reference agent's help texts reach it through a traced search: a figure of the FAQ is grounded
    when a search of the conversation returned it, not because the FAQ holds it somewhere. A search given
    by name alone (its question unknown) may have returned any passage."""

    def row(verdict: str, calls: list[object]) -> dict[str, object]:
        # the Belgian rate is right, but the question asked found the metropolitan one only
        return {
            "case": "faq-01",
            "verdict": verdict,
            "reponse": ["La livraison coûte 3,90 €, offerte dès 60 € ; 9,90 € pour la Belgique."],
            "outils": [calls],
            "escalade": False,
        }

    asked = {"outil": "rechercher_aide", "args": {"question": "frais de livraison"}}
    both = {"outil": "rechercher_aide", "args": {"question": "livraison Belgique Suisse"}}
    table = tmp_path / "table.json"
    rows = [row("mauvais", [asked]), row("bon", [asked, both]), row("bon", ["rechercher_aide"])]
    table.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    code, doc, out = trust("--table", str(table))
    assert code == 0, out
    assert doc["ensemble"] == {"bons": 2, "mauvais": 1, "accord": 1.0, "crie_au_loup": 0, "ment": 0}
    assert doc["rejets_par_controle"] == {"regles.fait_non_fonde": 1}


def test_a_case_s_checks_fingerprint_ignores_order_defaults_and_examples_and_sees_a_check() -> None:
    from filon.goldens.case.fingerprint import checks_fingerprint
    from filon.goldens.case.schema import Case

    data = json.loads((CASES / "adv-01.json").read_text(encoding="utf-8"))
    case = Case.model_validate(data)
    shuffled = Case.model_validate({"canal": "web", **dict(reversed(list(data.items()))), "exemples": []})
    assert checks_fingerprint(shuffled) == checks_fingerprint(case)
    noted = Case.model_validate({**data, "notes": "relu", "source": {"reviewer": "bob"}})
    assert checks_fingerprint(noted) == checks_fingerprint(case)
    for changed in (
        {"ne_contient_pas": [*data["ne_contient_pas"], "x"]},
        {"escalade": not data.get("escalade")},
    ):
        assert checks_fingerprint(Case.model_validate({**data, **changed})) != checks_fingerprint(case)


MONTHS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
          "novembre", "décembre")  # fmt: skip


def test_a_table_is_read_on_the_day_it_was_written(tmp_path: Path) -> None:
    """suivi-01's parcel is due the day after the shop's today: an answer written on a past day names
    that day's tomorrow, right on that day only."""
    day = date.today() - timedelta(days=100)
    due = day + timedelta(days=1)
    said = f"Votre colis Colissimo est en transit, livraison prévue le {due.day} {MONTHS[due.month - 1]}."
    calls = [{"outil": "consulter_commande", "args": {"numero": "LL-10562"}}]
    calls.append({"outil": "suivre_colis", "args": {"numero": "LL-10562"}})
    rows = [{"case": "suivi-01", "verdict": "bon", "reponse": [said], "outils": [calls], "escalade": False}]
    table = tmp_path / "dated.json"
    table.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    code, today_s, out = trust("--table", str(table))
    assert code == 0, out
    assert today_s["ensemble"]["crie_au_loup"] == 1  # read today, its date is no longer the parcel's
    code, on_its_day, out = trust("--table", str(table), "--on", day.isoformat())
    assert code == 0, out
    assert on_its_day["ensemble"]["crie_au_loup"] == 0 and on_its_day["ensemble"]["accord"] == 1.0


def test_on_needs_a_day_and_a_table(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["goldens", "trust", "--on", "2026-13-01", "--table", "x.json", str(CASES)])
    assert bad.exit_code == 2 and "--on '2026-13-01'" in bad.output
    alone = runner.invoke(app, ["goldens", "trust", "--on", "2026-12-01", str(CASES)])
    assert alone.exit_code == 2 and "--table" in alone.output


def test_disagreements_name_each_row_the_gate_judged_otherwise(tmp_path: Path) -> None:
    rows = [
        {
            "case": "faq-01",
            "verdict": "bon",
            "reponse": ["C'est gratuit."],
            "outils": [[]],
            "escalade": False,
        },
        {
            "case": "faq-01",
            "verdict": "mauvais",
            "reponse": ["La livraison coûte 3,90 €, offerte dès 60 € d'achat."],
            "outils": [[{"outil": "rechercher_aide", "args": {"question": "frais de livraison"}}]],
            "escalade": False,
        },
    ]
    table = tmp_path / "table.json"
    table.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    code, doc, out = trust("--table", str(table), "--disagreements")
    assert code == 0, out
    wolf, lie = doc["desaccords"]
    assert wolf["ligne"] == 0 and wolf["verdict"] == "bon" and wolf["echoue_par"]  # what failed it
    assert lie == {"ligne": 1, "cas": "faq-01", "verdict": "mauvais", "echoue_par": []}
    assert "desaccords" not in trust("--table", str(table))[1]  # asked for only
    said = runner.invoke(app, ["goldens", "trust", "--table", str(table), "--disagreements", str(CASES)])
    assert "row 1  faq-01  mauvais: passed every check" in said.stdout


def test_a_forbidden_write_the_shop_refused_changed_nothing_where_the_case_says_si_reussi(
    tmp_path: Path,
) -> None:
    """A table's calls carry no result: with `si_reussi`, trust replays them on the case's shop, so that a
    return the shop refused (`{"accepte": false, "raison": …}`) is not the forbidden write, and one it
    registered is."""
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in ("retour-02", "retour-03"):  # delivered 31 days ago (refused), and 30 (registered)
        case = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
        case["outils_interdits"] = [{"outil": "demander_retour", "si_reussi": True}]
        case["outils"], case["contient"], case["ne_contient_pas"] = [], [], []
        case["exemples"] = []
        (folder / f"{name}.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")

    def row(case: str, order: str) -> dict[str, object]:
        call = {"outil": "demander_retour", "args": {"numero": order, "motif": "taille"}}
        return {"case": case, "verdict": "bon", "reponse": ["Voilà."], "outils": [[call]], "escalade": False}

    table = tmp_path / "table.json"
    table.write_text(
        json.dumps([row("retour-02", "LL-19002"), row("retour-03", "LL-10573")]), encoding="utf-8"
    )
    result = runner.invoke(app, ["goldens", "trust", "--json", "--table", str(table), str(folder)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["ensemble"]["crie_au_loup"] == 1 and doc["bons_echoues_par_controle"] == {"outil_interdit": 1}
