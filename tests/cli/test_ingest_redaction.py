"""Personal data in what a stack sends, as it sends it: messages kept as JSON text inside an attribute,
whose escapes hide the characters (a phone spaced by no-break spaces is `\\u00a0` in the text, an "@"
may be `\\u0040`). `filon ingest` then `traces show`, as a newcomer found them shown raw."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()


def test_a_phone_and_an_email_escaped_in_json_messages_are_never_shown(tmp_path: Path) -> None:
    asked = [
        {
            "role": "user",
            "parts": [{"type": "text", "content": "Rappelez-moi au 06\u00a012\u00a034\u00a056\u00a078"}],
        }
    ]
    said = [
        {"role": "assistant", "parts": [{"type": "text", "content": "C'est noté : jean.dupont@free.fr."}]}
    ]
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "chat",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.conversation.id", "value": {"stringValue": "web:nbsp"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(asked)}},
            {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps(said).replace("@", "\\u0040")}},
        ],
    }  # fmt: skip
    payload = tmp_path / "spans.json"
    payload.write_text(
        json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}),
        encoding="utf-8",
    )
    assert "\\\\u00a0" in payload.read_text(encoding="utf-8")  # escaped inside the attribute's JSON text
    assert runner.invoke(app, ["ingest", str(payload)]).exit_code == 0
    shown = runner.invoke(app, ["traces", "show", "web:nbsp", "--json"])
    assert shown.exit_code == 0, shown.output
    [turn] = json.loads(shown.stdout)["turns"]
    assert turn["user"].startswith("Rappelez-moi au ") and turn["agent"].startswith("C'est noté : ")
    assert "12\u00a034" not in shown.stdout and "56 78" not in turn["user"]
    assert "jean.dupont" not in shown.stdout
