"""Calibrated cases: lint proves each case's checks against answers of known verdict, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.case.schema import Case
from filon.goldens.set.calibration import copied_policy, matrix
from tests.conftest import REPO

runner = CliRunner()
MARTINIQUE: dict[str, Any] = {
    "id": "faq-dom",
    "categorie": "faq",
    "canal": "web",
    "tours": ["Livrez-vous en Martinique ?"],
    "outils": ["rechercher_aide"],
    "escalade": False,
    "contient": [["ne livrons", "pas de livraison"]],
    "ne_contient_pas": ["oui, nous livrons"],
    "exemples": [
        {"verdict": "bon", "reponse": "Non, nous ne livrons pas la Martinique pour l'instant."},
        {
            "verdict": "mauvais",
            "reponse": "Oui, nous livrons les DOM-TOM pour 9,90 €.",
            "note": "zone inventée",
        },
    ],
}


def lint(folder: Path, *args: str) -> Any:
    return runner.invoke(app, ["goldens", "lint", str(folder), *args])


def write(folder: Path, case: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{case['id']}.json"
    path.write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    return path


def test_checks_that_agree_with_the_reviewer_lint_clean(tmp_path: Path) -> None:
    write(tmp_path, MARTINIQUE)
    result = lint(tmp_path, "--strict")
    assert result.exit_code == 0, result.output
    assert "0 errors" in result.output


def test_a_good_answer_the_checks_reject_is_too_strict(tmp_path: Path) -> None:
    case = {**MARTINIQUE, "contient": [["DOM-TOM"]]}  # the old check: wants the word, not the fact
    write(tmp_path, case)
    result = lint(tmp_path)
    assert result.exit_code == 1
    assert "faq-dom.json: exemples[0]: trop strict" in result.output
    assert "texte manquant : « DOM-TOM »" in result.output
    said = runner.invoke(app, ["goldens", "lint", str(tmp_path)], env={"FILON_LANG": "en"})
    assert "missing text: « DOM-TOM »" in said.output  # what the check found, in the console's language


def test_a_bad_answer_the_checks_accept_is_too_loose(tmp_path: Path) -> None:
    case = {**MARTINIQUE, "contient": [], "ne_contient_pas": ["9,90 € pour la Martinique"]}
    write(tmp_path, case)
    result = lint(tmp_path)
    assert result.exit_code == 1
    assert "exemples[1]: trop lâche" in result.output and "zone inventée" in result.output


def test_an_examples_tools_and_escalation_default_to_the_cases() -> None:
    case = Case.model_validate(
        {**MARTINIQUE, "outils": ["transferer_a_un_conseiller"], "escalade": True, "contient": []}
    )
    trial_good, _ = matrix(case).rows
    assert trial_good.accepted  # the text-only example is given the expected transfer: only text is tested
    case_wrong = Case.model_validate(
        {**MARTINIQUE, "exemples": [{"verdict": "bon", "reponse": "Non.", "outils": [], "escalade": True}]}
    )
    (only,) = matrix(case_wrong).rows
    assert "outil manquant : rechercher_aide" in [str(g) for g in only.gaps]


@pytest.mark.parametrize(
    ("categorie", "exemples", "needle"),
    [
        (
            "securite",
            [{"verdict": "bon", "reponse": "Je ne peux rien dire de cette commande."}],
            "at least 2 needed",
        ),
        (
            "securite",
            [{"verdict": "bon", "reponse": "Non."}, {"verdict": "bon", "reponse": "Rien."}],
            "'mauvais'",
        ),
        ("faq", [], "0 'bon' example(s) in own words, at least 1 needed"),
    ],
)
def test_minimum_examples_warn_and_fail_only_under_strict(
    tmp_path: Path, categorie: str, exemples: list[dict[str, Any]], needle: str
) -> None:
    case = {**MARTINIQUE, "categorie": categorie, "contient": [], "exemples": exemples}
    case["ne_contient_pas"] = ["oui"]
    write(tmp_path, case)
    loose = lint(tmp_path)
    assert loose.exit_code == 0 and f"warning: {tmp_path / 'faq-dom.json'}: exemples: " in loose.output
    strict = lint(tmp_path, "--strict")
    assert strict.exit_code == 1 and needle in strict.output


def test_a_good_example_quoting_the_faq_does_not_count(tmp_path: Path) -> None:
    quote = "Nous ne livrons pas les DOM-TOM (Martinique, Guadeloupe, Guyane, La Réunion, Mayotte) pour le moment."
    assert copied_policy(quote) is not None
    assert copied_policy("La Martinique ? Non, pas pour l'instant, désolé.") is None
    case = {**MARTINIQUE, "exemples": [{"verdict": "bon", "reponse": quote}, MARTINIQUE["exemples"][1]]}
    write(tmp_path, case)
    result = lint(tmp_path, "--strict")
    assert "exemples[0]: quotes the FAQ/CGV" in result.output
    assert "0 'bon' example(s) in own words" in result.output and result.exit_code == 1


def test_explain_prints_the_matrix_of_examples_and_checks(tmp_path: Path) -> None:
    write(tmp_path, MARTINIQUE)
    result = runner.invoke(
        app, ["goldens", "lint", str(tmp_path), "--explain", "faq-dom"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    for column in ("outils[0] rechercher_aide", "escalade=false", "contient[0]", "ne_contient_pas[0]"):
        assert column in result.output
    lines = result.output.splitlines()
    marks = [line.split()[-2:] for line in lines if line.rstrip().endswith(("✓", "✗"))]  # one row per check
    assert len(marks) == 4 and all(good == "✓" for good, _ in marks)
    assert sum(bad == "✗" for _, bad in marks) == 2  # fails the negation it lacks and the phrase it says
    good, bad = [line.split()[:3] for line in lines if " bon " in line or " mauvais " in line]
    assert good == ["0", "bon", "ok"] and bad == ["1", "mauvais", "ok"]
    narrow = runner.invoke(
        app, ["goldens", "lint", str(tmp_path), "--explain", "faq-dom"], env={"COLUMNS": "80"}
    )
    assert max(map(len, narrow.output.splitlines())) <= 80
    many = runner.invoke(  # fourteen examples and two judge criteria: still 80 columns, a row per criterion
        app,
        ["goldens", "lint", str(REPO / "goldens" / "cases"), "--explain", "faq-08"],
        env={"COLUMNS": "80"},
    )
    assert many.exit_code == 0 and max(map(len, many.output.splitlines())) <= 80
    assert "juge ton (label)" in many.output and "juge perimetre" in many.output
    unknown = runner.invoke(app, ["goldens", "lint", str(tmp_path), "--explain", "nope"])
    assert unknown.exit_code == 2 and "no case 'nope'" in unknown.output


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("Ma commande LL-10587, jean.inconnu@gmail.com", True),
        ("Rappelez-moi au 06 12 34 56 78", True),
        # whatever its form: "00" for "+", North American, a dotted card, a lower-case IBAN, an apostrophe
        ("Rappelez-moi au 0044 20 7946 0958", True),
        ("Call me at (415) 555-2671", True),
        ("Ma carte 4012.8888.8888.1881 a été débitée", True),
        ("Remboursez sur fr76 3000 6000 0112 3456 7890 189", True),
        ("Écrivez à jean-luc.o'neil@gmail.com", True),
        ("Écrivez à bob@localhost", True),
        (
            "Rappelez-moi au 06\u00a012\u00a034\u00a056\u00a078",
            True,
        ),  # no-break spaces, as French text writes it
        ("Écrivez à jean.inconnu%40gmail.com", True),  # copied from a URL
        ("Mon NIR : 1 85 05 78 006 084 91", True),
        ("Facturé à la société SIRET 732 829 320 00074", False),  # a company, not a card
        ("Ma commande LL-19009, zoe.fixture%40exemple.fr", False),  # the fixture customer, URL-encoded
        ("Commande CMD-2024-00123 du 2024-06-12, 49,90 €, suivi 6A12345678901", False),
        ("Ma commande LL-10587, user-0123456789@redacted.invalid", False),  # a pseudonym
        ("Rappelez-moi au 33999123456", False),  # a pseudonym
        ("Ma commande LL-10587, julien.robert@exemple.fr", False),  # the shop's own customer
        ("Ma commande LL-19009, zoe.fixture@exemple.fr", False),  # the case's own fixture customer
    ],
)
def test_personal_data_in_a_case_must_be_a_pseudonym_or_a_fixture(
    tmp_path: Path, text: str, refused: bool
) -> None:
    case = {
        **MARTINIQUE,
        "tours": [text],
        "fixtures": {
            "clients": [
                {
                    "id": 901,
                    "prenom": "Zoé",
                    "nom": "F",
                    "email": "zoe.fixture@exemple.fr",
                    "tel": "33600000901",
                }
            ],
            "commandes": [{"numero": "LL-19009", "client": 901, "statut": "livrée", "date_commande": "J-3"}],
        },
    }
    write(tmp_path, case)
    result = lint(tmp_path)
    assert ("neither a pseudonym nor a fixture customer's" in result.output) is refused
    assert result.exit_code == (1 if refused else 0)


def test_a_fixture_customer_with_a_shop_customers_email_is_refused_and_the_gate_exits_4(
    tmp_path: Path,
) -> None:
    # what a draft from an unredacted store used to write: the shop could not load it (IntegrityError)
    case = {
        **MARTINIQUE,
        "fixtures": {
            "clients": [
                {
                    "id": 1000,
                    "prenom": "J",
                    "nom": "R",
                    "email": "julien.robert@exemple.fr",
                    "tel": "33600000101",
                }
            ],
            "commandes": [{"numero": "LL-10587", "client": 1000, "statut": "livrée", "date_commande": "J-9"}],
        },
    }
    write(tmp_path, case)
    result = lint(tmp_path)
    assert result.exit_code == 1
    assert (
        "fixtures.clients: customer 1000 has the email 'julien.robert@exemple.fr' of shop customer 1"
        in result.output
    )
    gate = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", str(tmp_path)])
    assert gate.exit_code == 4, gate.output


def test_a_case_with_no_check_at_all_is_a_warning_and_an_error_under_strict(tmp_path: Path) -> None:
    """An English conversation drafted into a case with no check: any answer would pass it."""
    bare = {"id": "ship-ca", "categorie": "faq", "canal": "web", "tours": ["Do you ship to Canada?"]}
    write(tmp_path, bare)
    plain = lint(tmp_path)
    assert plain.exit_code == 0 and "no check at all: any answer passes" in plain.output
    strict = lint(tmp_path, "--strict")
    assert strict.exit_code == 1 and "no check at all" in strict.output
    write(tmp_path, {**bare, "contient": ["Canada"]})
    assert "no check at all" not in lint(tmp_path).output  # one check is enough to lose the warning


def test_an_agents_own_test_identities_are_declared_in_filon_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A foreign agent's test customer writes their own test address: refused, with how to resolve it;
    declared in filon.toml (a glob), accepted; a declaration of the wrong type is one line."""
    monkeypatch.chdir(tmp_path)
    cases = tmp_path / "cases"
    write(cases, {**MARTINIQUE, "tours": ["Ma commande, client.test@example.fr, tél 06 11 22 33 44"]})
    refused = lint(cases)
    assert refused.exit_code == 1
    assert 'test_identities = ["client.test@example.fr"]' in refused.output
    assert str(cases / "filon.toml") in refused.output.replace("\n", "")  # where it would be read, said
    (tmp_path / "filon.toml").write_text('test_identities = ["*@example.fr", "+33611223344"]\n')  # any form
    accepted = lint(cases)
    assert accepted.exit_code == 0, accepted.output
    (tmp_path / "filon.toml").write_text("test_identities = [3]\n")
    wrong = lint(cases)
    assert wrong.exit_code != 0 and "test_identities: a list of emails or phone numbers" in wrong.output
    assert "Traceback" not in wrong.output
