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
from tests.tracing.helpers import one_span

runner = CliRunner()


def payload(inputs: Any) -> dict[str, Any]:
    record = {"inputs": inputs, "tags": [], "metadata": {"thread_id": "t-1"}, "kwargs": {"name": "LangGraph"}}
    attributes = {
        "traceloop.span.kind": "workflow",
        "traceloop.entity.name": "LangGraph",
        "traceloop.entity.input": json.dumps(record),
        "traceloop.entity.output": json.dumps("Bien reçu."),
    }
    return one_span("LangGraph.workflow", attributes, trace_id="5" * 32, span_id="6" * 16)


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
