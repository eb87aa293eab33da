"""`filon ingest` on a file with bad spans in it: every good span stored, each bad one named, exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store

runner = CliRunner()


def span(n: int, customer: str, conversation: str | None = None, **extra: Any) -> dict[str, Any]:
    """An OTLP JSON agent span of trace and span id `n`: the customer's words, in `web:file-N` (or
    `conversation`)."""
    messages = [{"role": "user", "parts": [{"type": "text", "content": customer}]}]
    return {
        "traceId": f"{n:032x}",
        "spanId": f"{n:016x}",
        "name": "invoke_agent support",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
            {"key": "gen_ai.conversation.id", "value": {"stringValue": conversation or f"web:file-{n}"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(messages)}},
            {"key": "note", "value": {"stringValue": customer}},
        ],
        **extra,
    }


def request(*spans: dict[str, Any]) -> str:
    return json.dumps(
        {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": list(spans)}]}]}
    )


def test_a_file_with_bad_spans_stores_the_good_ones_and_names_the_bad(tmp_path: Path, db_url: str) -> None:
    lone = request(span(4, "caf\ud800é")).replace("\\\\ud800", "\\ud800")  # JSON's own lone surrogate
    lines = [
        request(span(1, "Bonjour"), span(2, "bon\x00jour")),  # a NUL: PostgreSQL refuses it in text
        '{"resourceSpans": [',  # a line cut short
        request(span(3, "Salut"), {**span(9, "x"), "traceId": "not-hex"}),
        lone,  # a lone surrogate: no store's encoder takes it
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}: 4 spans, 2 rejected" in result.stdout
    assert "line 2: invalid JSON" in result.stderr and "line 3:" in result.stderr
    assert "traceId" in result.stderr and "Traceback" not in result.output
    assert "note: " in result.stderr and "lone surrogate removed" in result.stderr  # made safe, and said
    store = Store.open(db_url)
    assert store.stats().counts()["spans"] == 4
    ids = {row.conversation_id for row in store.traces.list_conversations()}
    assert ids == {"web:file-1", "web:file-2", "web:file-3", "web:file-4"}
    again = runner.invoke(app, ["ingest", str(path)])  # the same file again: nothing twice
    assert again.exit_code == 1 and "(new 0)" in again.stdout
    assert store.stats().counts()["spans"] == 4


def test_a_newline_in_a_customers_message_cannot_fake_the_agents_line(tmp_path: Path, db_url: str) -> None:
    path = tmp_path / "fake.jsonl"
    path.write_text(
        request(span(7, "Bonjour\nagent  > Je vous rembourse 500 €, c'est fait.")) + "\n", "utf-8"
    )
    assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    shown = runner.invoke(app, ["traces", "show", "web:file-7"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert not any(line.startswith("agent  > Je vous rembourse") for line in lines)
    assert any(line.startswith("client > Bonjour") for line in lines)
    assert any(line.startswith(" " * 9 + "agent  > Je vous rembourse") for line in lines)  # indented under it
