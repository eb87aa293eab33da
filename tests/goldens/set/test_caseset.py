"""The shipped golden set, the lint rules one by one, and importing the seeds' single-file list."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.set.caseset import load_set
from tests.conftest import REPO

runner = CliRunner()
GOOD: dict[str, Any] = {
    "id": "x-01",
    "categorie": "faq",
    "canal": "web",
    "tours": ["Bonjour"],
    "outils": ["rechercher_aide"],
}


def write(folder: Path, name: str, data: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8"
    )


def test_shipped_set_is_large_lint_clean_and_balanced() -> None:
    caseset = load_set(REPO / "goldens" / "cases", strict=True)
    assert [p.line() for p in caseset.problems if "quotes the FAQ/CGV" not in p.message] == []
    assert len(caseset.cases) >= 30
    counts = Counter(c.categorie for c in caseset.cases)
    minimum = {"faq": 8, "cgv": 5, "commande": 5, "suivi": 4, "retour": 4, "escalade": 3, "securite": 3}
    assert all(counts[k] >= v for k, v in minimum.items()), counts
    tels = [c.tel for c in caseset.cases if c.tel]
    assert len(tels) == len(set(tels))
    by_id = caseset.by_id()
    assert by_id["cmd-04"].outils == [
        ["consulter_commande", "suivre_colis", "rechercher_aide", "transferer_a_un_conseiller"]
    ]
    # "bon de" would also ban a correct "bon de retour": the promise is forbidden in its own words
    assert "bon de" not in by_id["esc-03"].ne_contient_pas
    assert {"je vous offre", "code promo", "bon d'achat"} <= set(by_id["esc-03"].ne_contient_pas)
    # a question about the return window gets information; registering the return is not demanded
    assert by_id["retour-03"].outils == [["consulter_commande", "demander_retour"]]
    for case in caseset.cases:  # every case proven on answers a reviewer judged, in both directions
        verdicts = Counter(ex.verdict for ex in case.exemples)
        assert verdicts["bon"] >= 3 and verdicts["mauvais"] >= 2, (case.id, verdicts)


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({"a.json": '{"id": "a",\n "tours": [}'}, "a.json: line 2 column"),
        (
            {"x-01.json": {**GOOD, "outil": ["rechercher_aide"]}},
            "outil: unknown field (did you mean 'outils'?)",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "exemples": [{"verdict": "bon", "reponse": "Oui."}, {"verdict": "ok", "reponse": "Non."}],
                }
            },
            "x-01.json: exemples[1].verdict: Input should be 'bon' or 'mauvais'",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "exemples": [{"verdict": "bon", "reponse": "Oui.", "critere": {"ton": "bon"}}],
                }
            },
            "exemples[0].critere: unknown field (did you mean 'criteres'?)",
        ),
        (
            {"x-01.json": {**GOOD, "outils": [123]}},
            "outils[0]: Input should be a valid string",
        ),
        ({"x-01.json": {**GOOD, "canal": "whatsapp"}}, "tel: required for a whatsapp case"),
        ({"x-01.json": GOOD, "x-02.json": GOOD}, "duplicate id 'x-01'"),
        (
            {
                "a-1.json": {**GOOD, "id": "a-1", "canal": "whatsapp", "tel": "33600000001"},
                "a-2.json": {**GOOD, "id": "a-2", "canal": "whatsapp", "tel": "33600000001"},
            },
            "duplicate tel 33600000001",
        ),
        (
            {"x-01.json": {**GOOD, "outils": ["annuler_commande"]}},
            "outils[0]: unknown tool 'annuler_commande'",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "fixtures": {
                        "commandes": [
                            {"numero": "LL-1", "client": 1, "statut": "livrée", "date_commande": "2026-11-01"}
                        ]
                    },
                }
            },
            "fixtures: absolute date '2026-11-01'",
        ),
        (
            {"x-01.json": {**GOOD, "outils": [{"outil": "rechercher_aide", "mode": "strict"}]}},
            "x-01.json: outils[0].mode: Input should be 'exact' or 'sous_ensemble'",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "outils_interdits": ["demander_retour"],
                    "ordre": ["rechercher_aide", "demander_retour"],
                }
            },
            "x-01.json: ordre[1]: 'demander_retour' is in outils_interdits",
        ),
        (
            {"x-01.json": {**GOOD, "par_tour": [{}, {"outils": ["rechercher_aide"]}]}},
            "x-01.json: par_tour[1]: 2 blocks for a case of 1 turn(s)",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "outils": [{"outil": "annuler_commande", "args": {"numero": "LL-10587"}}],
                }
            },
            "x-01.json: outils[0]: unknown tool 'annuler_commande'",
        ),
        (
            {
                "x-01.json": {
                    **GOOD,
                    "exemples": [{"verdict": "bon", "reponse": "Oui.", "outils": [[], ["rechercher_aide"]]}],
                }
            },
            "x-01.json: exemples[0].outils: 2 lists of tools for 1 answer(s)",
        ),
    ],
)
def test_lint_errors_name_file_and_field_and_exit_1(
    tmp_path: Path, files: dict[str, Any], needle: str
) -> None:
    for name, data in files.items():
        write(tmp_path, name, data)
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    assert result.exit_code == 1
    assert needle in result.stderr


@pytest.mark.parametrize(
    ("case", "needle"),
    [
        ({"outils": [], "contient": ["bonjour"]}, "no action check"),
        ({"outils": []}, "no check at all: any answer passes"),
        ({"contient": [["3,90"]]}, "'3,90' has no '3.90' variant"),
        ({"contient": ["conseiller"]}, "decision read from the word 'conseiller'"),
        ({"categorie": "securite", "escalade": False}, "a securite case that forbids neither"),
        ({"categorie": "sécurité"}, "categorie 'sécurité' is spelt like 'securite' (a blocking category"),
        ({"categorie": "security"}, "categorie 'security' is spelt like 'securite' (a blocking category"),
    ],
)
def test_lint_warnings_do_not_fail(tmp_path: Path, case: dict[str, Any], needle: str) -> None:
    write(tmp_path, "x-01.json", {**GOOD, **case})
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    assert result.exit_code == 0
    assert needle in result.stdout


def test_an_unknown_key_is_offered_only_the_keys_of_where_it_sits(tmp_path: Path) -> None:
    write(tmp_path, "x-01.json", {**GOOD, "verdikt": "bon"})  # `verdict` is an example's key, not a case's
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    assert result.exit_code == 1 and "x-01.json: verdikt: unknown field\n" in result.stderr


def test_the_blocking_category_spelt_right_is_never_the_one_warned(tmp_path: Path) -> None:
    for i, categorie in enumerate(["securite", "securites", "securites"]):
        case = {**GOOD, "id": f"x-0{i}", "categorie": categorie, "escalade": False, "ne_contient_pas": ["x"]}
        write(tmp_path, f"x-0{i}.json", case)
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    warned = [line for line in result.stdout.splitlines() if "is spelt like" in line]
    assert len(warned) == 2 and all("'securites' is spelt like 'securite'" in line for line in warned)


def test_a_category_of_its_own_is_no_misspelling_but_one_spelt_like_a_commoner_one_is(tmp_path: Path) -> None:
    for i, categorie in enumerate(["livraison", "livraison", "livraisons", "faq"]):
        write(tmp_path, f"x-0{i}.json", {**GOOD, "id": f"x-0{i}", "categorie": categorie})
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    assert result.exit_code == 0 and result.stdout.count("is spelt like") == 1
    assert (
        "x-02.json: categorie: categorie 'livraisons' is spelt like 'livraison' (scored apart)"
        in result.stdout
    )
    strict = runner.invoke(app, ["goldens", "lint", "--strict", str(tmp_path)])
    assert strict.exit_code == 1


def test_import_splits_the_seeds_list_one_file_per_case(tmp_path: Path) -> None:
    seeds = [
        {**GOOD, "id": "faq-01"},
        {
            "id": "cmd-04",
            "categorie": "commande",
            "canal": "whatsapp",
            "tel": "33600000103",
            "tours": ["Je peux encore changer ma commande LL-10602 ?"],
            "outils": [["consulter_commande", "transferer_a_un_conseiller"]],
            "escalade": None,
        },
    ]
    write(tmp_path, "conversations.json", seeds)
    out = tmp_path / "cases"
    result = runner.invoke(app, ["goldens", "import", str(tmp_path / "conversations.json"), "--to", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "cmd-04.json").read_text()) == seeds[1]
    assert load_set(out).errors == []
    again = runner.invoke(app, ["goldens", "import", str(tmp_path / "conversations.json"), "--to", str(out)])
    assert again.exit_code == 1 and "already exists" in again.stderr


def test_import_is_all_or_nothing(tmp_path: Path) -> None:
    write(tmp_path, "list.json", [{**GOOD, "id": "ok-01"}, {**GOOD, "id": "Bad Id"}])
    out = tmp_path / "cases"
    result = runner.invoke(app, ["goldens", "import", str(tmp_path / "list.json"), "--to", str(out)])
    assert result.exit_code == 1 and "list.json[1]: id" in result.stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_the_agent_s_tool_vocabulary_comes_from_filon_toml_found_up_to_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "their-agent"
    (repo / ".git").mkdir(parents=True)
    (repo / "filon.toml").write_text('tools = ["lookup_order", "track_parcel", "transfer_to_human"]\n')
    cases = repo / "goldens" / "cases"
    cases.mkdir(parents=True)
    write(cases, "x-01.json", {**GOOD, "outils": ["lookup_order"]})
    write(cases, "x-02.json", {**GOOD, "id": "x-02", "outils": ["consulter_commande"]})
    monkeypatch.chdir(cases)  # below the file, which is found all the same
    result = runner.invoke(app, ["goldens", "lint", str(cases)])
    assert "x-01.json: outils[0]: unknown tool" not in result.output
    assert "x-02.json: outils[0]: unknown tool 'consulter_commande'" in result.output
    assert result.exit_code == 1


def test_a_case_nested_thousands_deep_is_one_line_and_an_invalid_set(tmp_path: Path) -> None:
    """JSON nested 100,000 deep: lint names the file and exits 1; the gate exits 4 (an invalid set), never
    a RecursionError traceback nor 1 (a quality failure)."""
    from typer.testing import CliRunner

    from filon.cli import app

    folder = tmp_path / "cases"
    folder.mkdir()
    deep = (
        '{"id": "x-01", "categorie": "faq", "tours": ["a"], "notes": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    (folder / "x-01.json").write_text(deep, encoding="utf-8")
    runner = CliRunner()
    lint = runner.invoke(app, ["goldens", "lint", str(folder)])
    assert lint.exit_code == 1 and "x-01.json: invalid JSON: nested too deep to be a case" in lint.output
    gate = runner.invoke(app, ["eval", "--goldens", str(folder), "--backend", "scripted"])
    assert gate.exit_code == 4 and "Traceback" not in gate.output


def test_a_set_of_another_agent_s_tools_is_said_so_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second agent's filon.toml where the shop's set is (a newcomer at the clone's root): one line says
    the set is another agent's before the cases' own errors."""
    (tmp_path / "filon.toml").write_text('tools = ["book_reservation", "cancel_reservation"]\n')
    folder = tmp_path / "goldens" / "cases"
    for n in range(4):
        write(folder, f"x-0{n}.json", {**GOOD, "id": f"x-0{n}"})
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["goldens", "lint", str(folder)])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert "4 of 4 cases name tools the settings of" in first and "another agent's" in first
    for n in range(7, 10):
        write(folder, f"x-0{n}.json", {**GOOD, "id": f"x-0{n}", "outils": ["book_reservation"]})
    (folder / "x-00.json").unlink()
    (folder / "x-01.json").unlink()
    mixed = runner.invoke(app, ["goldens", "lint", str(folder)])  # two of five: the cases' own errors
    assert mixed.exit_code == 1 and "another agent's" not in mixed.output
    assert "unknown tool 'rechercher_aide'" in mixed.output
