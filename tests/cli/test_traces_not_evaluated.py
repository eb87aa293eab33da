"""`filon traces show` says where production could not hold a turn to `fait_non_fonde` (a tool result the
stack did not record, the agent's instructions recorded nowhere and no `sources` declared): neither a
pass nor a flag, said under the turn and in `--json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()
ANSWER = "Votre colis est bloqué au hub de Marseille."


def attrs(**values: str) -> list[dict[str, Any]]:
    return [{"key": k.replace("__", "."), "value": {"stringValue": v}} for k, v in values.items()]


def trace(n: int, conversation: str, result: str | None, told: bool = True) -> list[dict[str, Any]]:
    """A turn: the customer asks, the agent tracks the parcel (its result recorded or not) and answers;
    `told`: the agent's instructions recorded (`gen_ai.system_instructions`)."""
    user = [{"role": "user", "parts": [{"type": "text", "content": "Où est mon colis LL-10562 ?"}]}]
    said = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
    tid, t0 = f"{n:032x}", 1_700_000_000_000_000_000
    tool = attrs(
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="suivre_colis",
        gen_ai__tool__call__arguments='{"numero": "LL-10562"}',
    )
    if result is not None:
        tool += attrs(gen_ai__tool__call__result=result)
    root = {
        "traceId": tid,
        "spanId": f"{2 * n:016x}",
        "name": "invoke_agent support",
        "startTimeUnixNano": str(t0),
        "endTimeUnixNano": str(t0 + 9_000_000),
        "attributes": attrs(
            gen_ai__operation__name="invoke_agent",
            gen_ai__conversation__id=conversation,
            gen_ai__input__messages=json.dumps(user),
            gen_ai__output__messages=json.dumps(said),
            **({"gen_ai__system_instructions": "Tu es l'assistant de la boutique."} if told else {}),
        ),
    }
    child = {
        "traceId": tid,
        "spanId": f"{2 * n + 1:016x}",
        "parentSpanId": root["spanId"],
        "name": "execute_tool suivre_colis",
        "startTimeUnixNano": str(t0 + 1_000_000),
        "endTimeUnixNano": str(t0 + 2_000_000),
        "attributes": tool,
    }
    return [root, child]


@pytest.fixture
def ingested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    parcel = json.dumps({"etat": "en transit", "derniere_position": "Plateforme de Lyon"})
    spans = [
        *trace(1, "web:unrecorded", None),
        *trace(2, "web:recorded", parcel),
        *trace(3, "web:untold", parcel, told=False),
    ]
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}
    (tmp_path / "export.jsonl").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(tmp_path / "export.jsonl"), "--sample-rate", "1"])
    assert result.exit_code == 0, result.output


@pytest.mark.usefixtures("ingested")
def test_a_turn_after_an_unrecorded_result_is_said_not_evaluated_never_flagged() -> None:
    unrecorded = json.loads(runner.invoke(app, ["traces", "show", "web:unrecorded", "--json"]).stdout)
    assert [f["cause"] for f in unrecorded["flags"] if f["kind"] == "grounding"] == []
    assert [(u["turn"], u["rule"]) for u in unrecorded["not_evaluated"]] == [(0, "fait_non_fonde")]
    assert "suivre_colis" in unrecorded["not_evaluated"][0]["reason"]
    shown = runner.invoke(app, ["traces", "show", "web:unrecorded"])
    assert shown.exit_code == 0, shown.output
    assert "fait_non_fonde not evaluated: the result of suivre_colis was not recorded" in shown.stdout
    # the same answer after a recorded result is held to the rule: flagged, nothing left unevaluated
    recorded = json.loads(runner.invoke(app, ["traces", "show", "web:recorded", "--json"]).stdout)
    assert [f["cause"] for f in recorded["flags"] if f["kind"] == "grounding"] == ["ungrounded_fact"]
    assert recorded["not_evaluated"] == []


@pytest.mark.usefixtures("ingested")
def test_an_agent_whose_instructions_were_not_recorded_is_not_held_to_it_without_sources(
    tmp_path: Path,
) -> None:
    untold = json.loads(runner.invoke(app, ["traces", "show", "web:untold", "--json"]).stdout)
    assert [f["cause"] for f in untold["flags"] if f["kind"] == "grounding"] == []
    assert [(u["turn"], u["rule"]) for u in untold["not_evaluated"]] == [(0, "fait_non_fonde")]
    assert "instructions were not recorded" in untold["not_evaluated"][0]["reason"]
    # declared `sources` say what it was told: the turn can be held to the rule (said as it is shown)
    (tmp_path / "aide").mkdir()
    (tmp_path / "aide" / "faq.md").write_text("La livraison prend 3 jours.", encoding="utf-8")
    (tmp_path / "filon.toml").write_text('sources = ["aide"]\n', encoding="utf-8")
    told = json.loads(runner.invoke(app, ["traces", "show", "web:untold", "--json"]).stdout)
    assert told["not_evaluated"] == []


@pytest.mark.usefixtures("ingested")
def test_nothing_is_said_where_production_does_not_read_the_rule(tmp_path: Path) -> None:
    (tmp_path / "filon.toml").write_text("[rules.fait_non_fonde]\nproduction = false\n", encoding="utf-8")
    shown = json.loads(runner.invoke(app, ["traces", "show", "web:unrecorded", "--json"]).stdout)
    assert shown["not_evaluated"] == []


def test_a_bad_filon_toml_is_named_by_traces_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text("[rules.nope]\nenabled = false\n", encoding="utf-8")
    shown = runner.invoke(app, ["traces", "show", "web:any"])
    assert shown.exit_code == 2 and "filon.toml" in shown.output and "nope" in shown.output
