"""The mission's own stack with automatic function calling (google-genai calls the Python function itself),
traced by the official instrumentation in its current release and in an earlier one (`record_google_genai_afc.py`):
the function's arguments and return value are read from its `execute_tool` span
(`code.function.parameters.<name>.value`, `code.function.return.value`), never `{}` and no result. The
earlier release puts the messages in log records, not on spans: the turn's text is not captured there,
and `traces doctor` says which setting of that stack adds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.tracing.stored import ingest

FIXTURES = Path(__file__).parent / "fixtures"
ORDER = {"order_id": "LL-10587", "status": "shipped", "carrier": "Colissimo"}
runner = CliRunner()


@pytest.mark.parametrize("fixture", ["google-genai-afc-1.3.pb", "google-genai-afc-0.4.pb"])
def test_a_function_the_sdk_called_itself_is_read_with_its_arguments_and_result(fixture: str) -> None:
    _, conversations = ingest(FIXTURES / fixture)
    turns, _ = conversations["afc-1"]
    [turn] = turns
    [call] = turn.tools
    assert (call.name, call.arguments, call.result) == ("get_order_status", {"order_id": "LL-10587"}, ORDER)
    assert conversations["afc-2"][0][0].tools == []


def test_the_current_release_carries_the_turn_s_text() -> None:
    _, conversations = ingest(FIXTURES / "google-genai-afc-1.3.pb")
    [turn] = conversations["afc-1"][0]
    assert turn.user == "Quel est le statut de ma commande LL-10587 ?"
    assert '"carrier": "Colissimo"' in turn.agent


def test_the_earlier_release_s_missing_text_is_said_with_its_setting() -> None:
    said = runner.invoke(app, ["traces", "doctor", "--json", str(FIXTURES / "google-genai-afc-0.4.pb")])
    [found] = json.loads(said.stdout)
    missing = {m["what"]: m["advice"] for m in found["missing"]}
    assert (
        "customer's text" in missing
        and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in missing["customer's text"]
    )
