"""A LangChain callback's record on an OpenLLMetry workflow span (`{"inputs", "tags", "metadata",
"kwargs"}`): the customer's text is the newest user message of its inputs, never the run's name in its
`kwargs`; a record of any other shape is read as nothing rather than break ingest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()


def payload(inputs: Any) -> dict[str, Any]:
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    record = {"inputs": inputs, "tags": [], "metadata": {"thread_id": "t-1"}, "kwargs": {"name": "LangGraph"}}
    span = {
        "traceId": "5" * 32,
        "spanId": "6" * 16,
        "name": "LangGraph.workflow",
        "startTimeUnixNano": "1764900000000000000",
        "endTimeUnixNano": "1764900001000000000",
        "attributes": [
            kv("traceloop.span.kind", "workflow"),
            kv("traceloop.entity.name", "LangGraph"),
            kv("traceloop.entity.input", json.dumps(record)),
            kv("traceloop.entity.output", json.dumps("Bien reçu.")),
        ],
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


@pytest.mark.parametrize(
    ("inputs", "user"),
    [
        ({"messages": ["user", "Où est mon colis ?"]}, "Où est mon colis ?"),  # LangGraph's one pair
        (
            {"messages": [["user", "Bonjour"], ["assistant", "Bonjour !"], ["human", "Mon colis ?"]]},
            "Mon colis ?",
        ),
        (
            {
                "messages": [
                    {
                        "lc": 1,
                        "id": ["langchain", "schema", "messages", "HumanMessage"],
                        "kwargs": {"content": "Et ma facture ?"},
                    }
                ]
            },
            "Et ma facture ?",
        ),
        ({"input": "Une question"}, "Une question"),
        ({"messages": [{"lc": 1, "id": 5, "kwargs": {"content": "x"}}, None, ["user", 3]]}, ""),
        ("Texte seul", "Texte seul"),
        (7, ""),
    ],
)
def test_the_customer_s_text_is_the_newest_user_message_never_the_run_s_name(
    tmp_path: Path, inputs: Any, user: str
) -> None:
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(payload(inputs)))
    assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    [listed] = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    shown = json.loads(runner.invoke(app, ["traces", "show", listed["conversation_id"], "--json"]).stdout)
    said = [t["user"] for t in shown["turns"]]
    assert said == [user] and "LangGraph" not in said
