"""An agent nobody here wrote (official instrumentation only, its own escalation tool), mined from OTLP files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from tests.tracing.helpers import captured, foreign_agent_turn, otlp_json, otlp_protobuf

runner = CliRunner()


def test_foreign_agent_is_mined_from_protobuf_and_json(scripted, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with captured() as memory:
        foreign_agent_turn(scripted.url, "acme-42", "Je veux parler à un humain, c'est inadmissible")
        foreign_agent_turn(scripted.url, "acme-43", "Quel temps fait-il ?")
    spans = list(memory.get_finished_spans())
    assert not [s for s in spans if s.name.startswith(("execute_tool", "invoke_agent"))]
    (tmp_path / "a.pb").write_bytes(otlp_protobuf(spans[: len(spans) // 2]))
    (tmp_path / "b.json.gz").write_bytes(
        gzip.compress(json.dumps(otlp_json(spans[len(spans) // 2 :])).encode())
    )
    result = runner.invoke(
        app,
        [
            "ingest",
            str(tmp_path / "a.pb"),
            str(tmp_path / "b.json.gz"),
            "--escalation-tool",
            "handoff_to_human",
        ],
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(runner.invoke(app, ["traces", "show", "acme-42", "--json"]).stdout)
    [turn] = shown["turns"]
    assert [t["name"] for t in turn["tools"]] == ["handoff_to_human"]
    assert turn["escalated"] is True
    assert turn["user"] == "Je veux parler à un humain, c'est inadmissible"
    assert "conseiller" in turn["agent"] or "demande" in turn["agent"]
    # and the stand-in's answer says the shop's hours, which this agent was never told nor given by its
    # tool: a fact it saw nowhere (`fait_non_fonde`, on in production)
    assert [f["kind"] for f in shown["flags"]] == ["escalation", "grounding"]
    listed = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    assert {r["conversation_id"] for r in listed} == {"acme-42", "acme-43"}
    again = runner.invoke(app, ["ingest", str(tmp_path / "a.pb"), "--escalation-tool", "handoff_to_human"])
    assert "new 0" in again.stdout


def test_jsonl_and_a_bad_file(scripted, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with captured() as memory:
        foreign_agent_turn(scripted.url, "acme-7", "Quels sont les frais de livraison ?")
    spans = list(memory.get_finished_spans())
    lines = [json.dumps(otlp_json([s])) for s in spans]
    (tmp_path / "export.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "broken.json").write_text('{"resourceSpans": [}')
    result = runner.invoke(app, ["ingest", str(tmp_path / "broken.json"), str(tmp_path / "export.jsonl")])
    assert result.exit_code == 1
    assert "broken.json: line 1 column" in result.stderr
    assert f"export.jsonl: {len(spans)} spans" in result.stdout
    assert runner.invoke(app, ["traces", "show", "acme-7"]).exit_code == 0
