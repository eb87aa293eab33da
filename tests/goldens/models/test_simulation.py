"""`simulation` cases: a simulated customer (the stand-in over loopback) talks to the agent until its
objective or its turns run out; the checks apply to the whole conversation and to the shop afterwards."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.case.schema import Case, FinalStateSpec
from filon.goldens.checks.state import final_state_gaps, simulation_gaps
from tests.conftest import REPO


def _said_final_state_gaps(*args: Any) -> list[str]:
    return [str(g) for g in final_state_gaps(*args)]


def _said_simulation_gaps(*args: Any) -> list[str]:
    return [str(g) for g in simulation_gaps(*args)]


runner = CliRunner()
SIM = json.loads((REPO / "goldens" / "cases" / "sim-01.json").read_text(encoding="utf-8"))


def run(tmp_path: Path, case: dict, *extra: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    (folder / f"{case['id']}.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    report = tmp_path / "r.json"
    args = ["eval", "--backend", "scripted", "--goldens", str(folder), "--report", str(report), *extra]
    result = runner.invoke(app, args)
    doc = json.loads(report.read_text()) if report.exists() else {}
    return result.exit_code, doc, result.stdout + result.stderr


def test_a_simulation_reaching_its_objective(tmp_path: Path) -> None:
    code, doc, out = run(tmp_path, SIM)
    assert code == 0, out
    attempt = doc["cas"][0]["tentatives"][0]
    assert attempt["objectif_atteint"] is True
    assert attempt["messages_client"][0] == SIM["simulation"]["premier_message"]
    assert 1 < len(attempt["messages_client"]) <= SIM["simulation"]["max_tours"]
    assert len(attempt["reponses"]) == len(attempt["messages_client"]) == len(attempt["trace_ids"])
    assert "demander_retour" in attempt["outils"]  # across the turns, from the spans
    assert doc["simulateur"] == {
        "modele": "scripted-client",
        "substitut": True,
        "conversations": 1,
        "objectifs_atteints": 1,
    }
    assert doc["cout"]["par_role"]["simulateur"]["jetons_entree"] == attempt["jetons_simulateur_entree"] > 0
    assert "client simulé scripted-client (substitut scripté)" in out
    # the transcript is in the store, read from its spans like any conversation: the TUI opens it
    assert f"filon review --conversation {attempt['conversation']}" in out
    shown = runner.invoke(app, ["traces", "show", attempt["conversation"]])
    assert shown.exit_code == 0 and f"{len(attempt['messages_client'])} turn(s)" in shown.stdout
    assert "⚙ demander_retour" in shown.stdout and "ines.moreau@exemple.fr" not in shown.stdout  # redacted
    listed = runner.invoke(app, ["traces", "list", "--status", "open", "--json"])
    assert attempt["conversation"] not in listed.stdout  # not the reviewers' work: dismissed, with the run
    assert (
        attempt["conversation"] not in runner.invoke(app, ["traces", "list", "--status", "dismissed"]).stdout
    )
    replays = runner.invoke(app, ["traces", "list", "--replays"], env={"COLUMNS": "200"}).stdout
    assert attempt["conversation"] in replays  # the gate's own, apart from production's


def test_a_simulation_running_out_of_turns(tmp_path: Path) -> None:
    case = json.loads(json.dumps(SIM))
    case["simulation"] |= {
        "objectif": "Obtenir un remboursement en espèces, en boutique, de la commande LL-19011.",
        "max_tours": 3,
    }
    case["outils"], case["contient"], case["etat_final"] = [], [], None
    case["exemples"] = [{"verdict": "bon", "reponse": "Je ne peux pas rembourser en espèces."}]
    code, doc, _ = run(tmp_path, case)
    attempt = doc["cas"][0]["tentatives"][0]
    assert code == 1 and attempt["objectif_atteint"] is False
    assert len(attempt["messages_client"]) == 3 and "objectif non atteint en 3 tour(s)" in attempt["ecarts"]


def test_the_shop_afterwards_is_checked(tmp_path: Path) -> None:
    case = json.loads(json.dumps(SIM))
    case["etat_final"] = {"retours": [], "commandes": [{"numero": "LL-19011", "statut": "annulée"}]}
    code, doc, _ = run(tmp_path, case)
    gaps = doc["cas"][0]["tentatives"][0]["ecarts"]
    assert code == 1
    assert "état final : retour inattendu pour LL-19011" in gaps
    assert "état final : commande LL-19011 « livrée », attendu « annulée »" in gaps


def test_a_target_that_cannot_say_its_state_does_not_run_the_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mute_agent.py").write_text(
        "def answer(conversation_id, message, canal='web', tel=None):\n    return 'Bonjour.'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    case = {"id": "etat-01", "categorie": "retour", "tours": ["Bonjour"], "etat_final": {"retours": []},
            "exemples": [{"verdict": "bon", "reponse": "Bonjour."}]}  # fmt: skip
    code, doc, out = run(tmp_path, case, "--target", "python:mute_agent:answer")
    sys.modules.pop("mute_agent", None)
    assert code == 3, out  # nothing this target can run: nothing to decide
    assert doc["cas"][0]["tentatives"][0]["statut"] == "non_executable"
    assert "ne donne pas l'état final" in doc["cas"][0]["tentatives"][0]["non_executable"]


def test_final_state_gaps_on_built_states() -> None:
    state = {
        "retours": [{"commande": "LL-1", "motif": "taille"}],
        "commandes": [{"numero": "LL-1", "statut": "Livrée"}, {"numero": "LL-2", "statut": "en préparation"}],
    }
    assert (
        _said_final_state_gaps(FinalStateSpec.model_validate({"retours": [{"commande": "LL-1"}]}), state)
        == []
    )
    assert (
        _said_final_state_gaps(
            FinalStateSpec.model_validate({"commandes": [{"numero": "LL-1", "statut": "livree"}]}), state
        )
        == []
    )
    assert _said_final_state_gaps(
        FinalStateSpec.model_validate({"retours": [{"commande": "LL-2"}]}), state
    ) == ["état final : aucun retour enregistré pour LL-2"]
    assert _said_final_state_gaps(
        FinalStateSpec.model_validate({"commandes": [{"numero": "LL-9", "statut": "x"}]}), state
    ) == ["état final : commande LL-9 introuvable"]
    assert _said_final_state_gaps(FinalStateSpec.model_validate({"retours": []}), {"retours": []}) == []


def test_an_agent_going_round_in_circles_is_a_gap() -> None:
    same = "Pouvez-vous m'indiquer votre numéro de commande ?"
    assert _said_simulation_gaps(4, True, ["Bonjour.", same, same.upper()]) == [
        "boucle : la même réponse deux fois de suite (tour 3)"
    ]
    assert _said_simulation_gaps(4, True, ["Bonjour.", same, "Merci."]) == []


def test_a_simulation_case_takes_only_its_first_message() -> None:
    with pytest.raises(ValueError, match="takes no turns but its premier_message"):
        Case.model_validate({**SIM, "tours": ["Autre chose"]})
    assert Case.model_validate(SIM).tours == [SIM["simulation"]["premier_message"]]


def test_the_editors_try_plays_the_simulation_and_the_judge() -> None:
    from filon.goldens.drafting.review import try_case

    tried = try_case(SIM, "scripted", folder=REPO / "goldens" / "cases")
    assert tried.attempt.error is None and tried.attempt.objective_reached is True
    judged = json.loads((REPO / "goldens" / "cases" / "esc-01.json").read_text(encoding="utf-8"))
    verdicts = try_case(judged, "scripted", folder=REPO / "goldens" / "cases").attempt.model_checks.judged
    assert [v.criterion for v in verdicts] == ["ton", "perimetre"] and all(v.gates for v in verdicts)


def test_the_judge_reads_every_message_of_a_simulated_customer(tmp_path: Path, scripted) -> None:  # type: ignore[no-untyped-def]
    from filon.agent.model import scripted_client
    from filon.goldens.checks.rubrics import Rubric, Standing, load_rubric
    from filon.goldens.models.judge import Judge, Verdict
    from filon.goldens.models.model_checks import ModelChecks

    seen: list[list[str]] = []

    class Recording(Judge):
        def score(self, rubric: Rubric, customer: list[str], answer: str) -> Verdict:
            seen.append(customer)
            return super().score(rubric, customer, answer)

    case = Case.model_validate({**SIM, "juge": [{"critere": "ton"}]})
    rubric = load_rubric(REPO / "goldens" / "judges", "ton")
    judge = Recording(scripted_client(scripted.url), "scripted-juge", stand_in=True)
    checks = ModelChecks(judge=judge, rubrics={"ton": rubric}, standings={"ton": Standing(True, "")})
    sent = [SIM["simulation"]["premier_message"], "C'est la commande LL-19011."]
    checks.apply(case, ["Quel est le numéro ?", "C'est enregistré."], True, sent)
    assert seen == [sent]  # not the case's single turn: the whole conversation the judge rates
