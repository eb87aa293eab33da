"""filon reads the tau-bench airline conversations whole (`tests/corpus/tau_airline`): every customer
message, every answer, every call with its arguments and the result its next model call read, as the
benchmark's own trajectories have them (never as filon made them). Two shapes only real traffic had
shown: LLM spans the SDK cut at its default 128 attributes (the oldest, the customer's message and the
session among them, dropped: the turn's own span still holds the message) and call ids a model reused
within a turn (the n-th request of an id takes the n-th result)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.corpus import tau

runner = CliRunner()


def _result(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("tau")
    env = {"FILON_DB": f"sqlite:///{folder / 'filon.db'}", "FILON_HOME": str(folder), "FILON_REDACT": "0"}
    result = runner.invoke(app, ["ingest", *map(str, tau.payloads()), "--sample-rate", "1"], env=env)
    assert result.exit_code == 0, result.output
    out = {}
    for trial in tau.trials():
        result = runner.invoke(app, ["traces", "show", trial["conversation"], "--json"], env=env)
        assert result.exit_code == 0, result.output
        out[trial["conversation"]] = json.loads(result.stdout)
    return out


def test_every_conversation_is_read_whole(shown: dict[str, dict[str, Any]]) -> None:
    missed = []
    for trial in tau.trials():
        got = shown[trial["conversation"]]["turns"]
        want = trial["turns"]
        if len(got) != len(want):
            missed.append(f"{trial['conversation']}: {len(got)} turns, not {len(want)}")
            continue
        for n, (g, w) in enumerate(zip(got, want, strict=True)):
            where = f"{trial['conversation']} turn {n}"
            if g["user"] != w["user"]:
                missed.append(f"{where}: the customer's message")
            if g["agent"] != w["answer"]:
                missed.append(f"{where}: the answer")
            calls = [(c["name"], c["arguments"], _result(c["result"])) for c in g["tools"]]
            wanted = [(c["name"], c["arguments"], _result(c["result"])) for c in w["calls"]]
            if calls != wanted:
                missed.append(f"{where}: calls {[c[0] for c in calls]} != {[c[0] for c in wanted]}")
    assert not missed, "\n".join(missed[:20])


def test_a_cut_model_call_keeps_its_turn(shown: dict[str, dict[str, Any]]) -> None:
    """The last turn of trial 17-1: its model calls carry 128 attributes, the customer's message and the
    session among those dropped; the turn's own span gives the message, the next call's input the write's
    result."""
    last = shown["tau-airline-17-1"]["turns"][-1]
    assert last["user"] == "Yes, everything is correct. Please proceed with the changes."
    (write,) = last["tools"]
    assert write["name"] == "update_reservation_flights"
    assert _result(write["result"])["reservation_id"] == "4NQLHD"
