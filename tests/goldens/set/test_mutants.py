"""Mutants of good answers: one fact turned wrong by rule, and which of them a case's checks accept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.case.schema import Case
from filon.goldens.set.mutants import accepted, edits

runner = CliRunner()
CANCELLED: dict[str, Any] = {
    "id": "cmd-annulee",
    "categorie": "commande",
    "canal": "web",
    "tours": ["Ma commande LL-10565 est-elle annulée ?"],
    "outils": ["consulter_commande"],
    "escalade": False,
    "contient": [["annulée"]],
    "exemples": [
        {"verdict": "bon", "reponse": "Oui, votre commande LL-10565 est annulée depuis 6 jours."},
        {"verdict": "mauvais", "reponse": "Elle est en préparation.", "note": "mauvais statut"},
    ],
}


def mutated(text: str) -> dict[str, str]:
    return {change: out for _, change, out, _ in edits(text)}


def test_a_figure_moves_everywhere_the_answer_gives_it_and_numbering_stays() -> None:
    out = mutated("1. Livré en 30 jours, soit 30 jours pile.\n2. Rien d'autre.")
    assert out == {"« 30 » → « 31 »": "1. Livré en 31 jours, soit 31 jours pile.\n2. Rien d'autre."}


def test_a_figure_moves_by_one_and_identifiers_stay() -> None:
    out = mutated("Livrée il y a 30 jours (LL-10565, suivi 6A10562006FR), 3,90 €, prévue le 01/12/2026.")
    assert out["« 30 » → « 31 »"].startswith("Livrée il y a 31 jours (LL-10565")
    assert "4,90 €" in out["« 3,90 » → « 4,90 »"]
    assert "le 02/12/2026" in out["« 01/12/2026 » → « 02/12/2026 »"]
    assert not any("10566" in text or "6A10562007FR" in text for text in out.values())


@pytest.mark.parametrize(
    ("text", "change", "expected"),
    [
        ("Le colis est en transit.", "« est » → « n'est pas »", "Le colis n'est pas en transit."),
        ("Oui, c'est possible.", "« c'est » → « ce n'est pas »", "Oui, ce n'est pas possible."),
        ("Il sera livré demain.", "« sera » → « ne sera pas »", "Il ne sera pas livré demain."),
        ("Il ne peut pas être retourné.", "« ne peut pas » → « peut »", "Il peut être retourné."),
        ("Ce n'est pas possible.", "« n'est pas » → « est »", "C'est possible."),
        (
            "Les frais vous sont rendus.",
            "« vous sont » → « ne vous sont pas »",
            "Les frais ne vous sont pas rendus.",
        ),
        (
            "Nous vous remboursons.",
            "« vous remboursons » → « ne vous remboursons pas »",
            "Nous ne vous remboursons pas.",
        ),
        ("Vous avez 30 jours.", "« avez » → « n'avez pas »", "Vous n'avez pas 30 jours."),
        (
            "Où en est-elle ? Elle en est là.",
            "« en est » → « n'en est pas »",
            "Où en est-elle ? Elle n'en est pas là.",
        ),
        ("Il les a reçus.", "« les a » → « ne les a pas »", "Il ne les a pas reçus."),
        ("C’est fait.", "« C'est » → « Ce n'est pas »", "Ce n'est pas fait."),  # a typographic apostrophe
        ("Je n'ai pas pu.", "« n'ai pas » → « ai »", "J'ai pu."),  # elided again
        ("Ils ne vous sont pas rendus.", "« ne vous sont pas » → « vous sont »", "Ils vous sont rendus."),
        ("Ce n'était pas prévu.", "« n'était pas » → « était »", "C'était prévu."),
    ],
)
def test_a_statement_is_denied_and_a_denial_dropped(text: str, change: str, expected: str) -> None:
    assert mutated(text)[change] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Il n'est pas en transit.",
        "Rien ne vous sera expédié.",
        "Il y a deux jours.",
        "Quel est son numéro ?",
        "Où en est-elle ?",
        "Voici où en est votre colis.",
        "Quand est-ce qu'elle arrivera ?",
        "Le reste est offert.",  # « le reste »: an article and a noun; « est » alone is denied
    ],
)
def test_a_verb_denied_already_asked_or_in_il_y_a_is_left(text: str) -> None:
    denied = [change for kind, change, _, _ in edits(text) if kind == "négation"]
    assert denied == (["« est » → « n'est pas »"] if text.startswith("Le reste") else [])


def test_nhesitez_pas_is_no_fact_to_affirm() -> None:
    """A politeness is no denial to drop; the fact beside it is still mutated."""
    changes = [
        (kind, change)
        for kind, change, _, _ in edits("N'hésitez pas à revenir vers moi : votre colis est parti.")
    ]
    assert changes == [("négation", "« est » → « n'est pas »")]


def test_the_checks_accept_a_denial_until_a_forbidden_text_rejects_it() -> None:
    loose, tried = accepted(Case.model_validate(CANCELLED))
    assert tried == 2  # the figure, « est » denied; no denial to drop
    assert {m.change for m in loose} == {"« 6 » → « 7 »", "« est » → « n'est pas »"}
    tight = Case.model_validate(
        {**CANCELLED, "contient": [["annulée"], ["6 jours"]], "ne_contient_pas": ["n'est pas annulée"]}
    )
    assert accepted(tight) == ([], 2)


def test_an_answer_per_turn_is_edited_turn_by_turn_and_named_so(tmp_path: Path) -> None:
    two = {
        **CANCELLED,
        "tours": ["Bonjour", "Ma commande LL-10565 est-elle annulée ?"],
        "exemples": [
            {"verdict": "bon", "reponse": ["Bonjour !\nQue puis-je faire ?", "Elle est annulée."]},
            {"verdict": "mauvais", "reponse": ["Bonjour !", "Elle est en préparation."]},
        ],
    }
    loose, tried = accepted(Case.model_validate(two))
    assert tried == 1 and [m.turn for m in loose] == [1] and loose[0].answers[1] == "Elle n'est pas annulée."
    (tmp_path / "cmd-annulee.json").write_text(json.dumps(two, ensure_ascii=False), encoding="utf-8")
    out = runner.invoke(app, ["goldens", "lint", str(tmp_path), "--mutants"]).output
    assert "exemples[0].reponse[1]: mutant accepted (négation « est » → « n'est pas »)" in out


def test_a_good_example_the_checks_already_reject_gives_no_mutant() -> None:
    case = Case.model_validate({**CANCELLED, "contient": [["remboursée"]]})  # lint's « trop strict »
    assert accepted(case) == ([], 0)


def test_the_excerpt_stays_on_one_line(tmp_path: Path) -> None:
    case = {**CANCELLED, "exemples": [{"verdict": "bon", "reponse": "Bonjour.\nVotre commande est annulée."}]}
    (tmp_path / "cmd-annulee.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    out = runner.invoke(app, ["goldens", "lint", str(tmp_path), "--mutants"]).output
    assert "Bonjour. ⏎ Votre commande n'est pas annulée." in out
    assert all(line.startswith(("warning:", "1 cases", "mutants:", "rule ")) for line in out.splitlines())


def test_lint_mutants_warns_with_the_edit_and_counts_what_the_checks_rejected(tmp_path: Path) -> None:
    case = {**CANCELLED, "contient": [["annulée"], ["6 jours"]]}  # the figure pinned, the denial not
    (tmp_path / "cmd-annulee.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    plain = runner.invoke(app, ["goldens", "lint", str(tmp_path)])
    assert plain.exit_code == 0 and "mutant accepted" not in plain.output
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path), "--mutants"])
    assert result.exit_code == 0, result.output  # warnings: the reviewer decides
    assert (
        result.output.splitlines()[-1]
        == "mutants: 1 of 2 rejected by the checks, 1 accepted (warnings above)"
    )
    assert "1 cases, 0 errors, 0 warnings" in result.output  # lint's own count leaves the mutants out
    assert "chiffre" not in result.output
    assert (
        f"warning: {tmp_path / 'cmd-annulee.json'}: exemples[0]: mutant accepted (négation « est » → "
        "« n'est pas »): Oui, votre commande LL-10565 n'est pas annulée" in result.output
    )
