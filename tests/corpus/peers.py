"""The peer corpus (`peers/`): span payloads other projects wrote for their own test suites, fixtures and
docs (Langfuse's OTLP ingestion tests, Logfire's snapshots, the GenAI semantic conventions' examples,
OpenInference's spec, Laminar, opentelemetry-python-contrib, Strands, the AI SDK, ADK, pydantic-ai), each
with its source (`SOURCES.md`: repository, path, commit, license) and an expectation written by reading
the payload, never from filon's output (by a session that read none of filon). A fragment was wrapped
into an OTLP request as little as possible; each expectation's `wrapped` says what was invented.

`score(name)` reads one payload as a user would (`filon ingest`, then `traces list` and `traces show
--json`, redaction off: what is measured is reading) and counts the expected items read: per
conversation, that its turns are one conversation; per turn, the customer's text and the answer (where
the payload has them); per call, its name with its arguments, and its result (where the payload has it).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

FOLDER = Path(__file__).parent / "peers"


def names() -> list[str]:
    return sorted(p.stem for p in (FOLDER / "expect").glob("*.json"))


def expectation(name: str) -> dict[str, Any]:
    return json.loads((FOLDER / "expect" / f"{name}.json").read_text(encoding="utf-8"))


@dataclass
class Score:
    name: str
    expected: int = 0
    read: int = 0
    missed: list[str] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return self.read == self.expected


def _same_text(want: str, got: str) -> bool:
    return " ".join(want.split()) == " ".join(got.split())


def _value(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value.strip()
    return value


def _texts(value: Any) -> Any:
    """Text content blocks (`[{"text": …}]`) as the text they hold: two expectations of this corpus,
    by two readers, wrote a Strands tool's result one way and the other; both say the same thing."""
    value = _value(value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(b, dict) and set(b) <= {"text", "type"} for b in value)
    ):
        return "".join(str(b.get("text", "")) for b in value)
    return value


def _same_value(want: Any, got: Any) -> bool:
    if want == got or _value(want) == _value(got) or _texts(want) == _texts(got):
        return True
    return isinstance(want, str) and isinstance(got, str) and _same_text(want, got)


def _turn_items(want: dict[str, Any], got: dict[str, Any] | None, where: str, out: Score) -> None:
    for key, stored in (("user", "user"), ("answer", "agent")):
        if want.get(key) is None:
            continue
        out.expected += 1
        if got is not None and _same_text(str(want[key]), str(got.get(stored) or "")):
            out.read += 1
        else:
            out.missed.append(f"{where} {key}")
    calls = list((got or {}).get("tools") or [])
    for k, tool in enumerate(want.get("tools") or []):
        call = calls[k] if k < len(calls) else None
        out.expected += 1
        if (
            call is not None
            and call["name"] == tool["name"]
            and (tool.get("arguments") is None or _same_value(tool["arguments"], call["arguments"]))
        ):
            out.read += 1
        else:
            out.missed.append(f"{where} call {k} {tool['name']}")
        if tool.get("result") is not None:
            out.expected += 1
            if call is not None and _same_value(tool["result"], call.get("result")):
                out.read += 1
            else:
                out.missed.append(f"{where} call {k} result")


def _match(want: dict[str, Any], shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The stored conversation that holds the expected one: the one whose turns read most of it."""
    best, most = None, -1
    for conv in shown:
        trial = Score("")
        for i, turn in enumerate(want["turns"]):
            got = conv["turns"][i] if i < len(conv["turns"]) else None
            _turn_items(turn, got, "", trial)
        if trial.read > most:
            best, most = conv, trial.read
    return best


def score(name: str) -> Score:
    from filon.cli import app

    want = expectation(name)
    out = Score(name)
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"FILON_DB": f"sqlite:///{tmp}/filon.db", "FILON_HOME": tmp, "FILON_REDACT": "0"}
        here = os.getcwd()
        os.chdir(tmp)  # no filon.toml of this repository: the defaults a new user has
        try:
            payload = FOLDER / "payloads" / f"{name}.json"
            result = runner.invoke(app, ["ingest", str(payload), "--sample-rate", "1"], env=env)
            listed = runner.invoke(app, ["traces", "list", "--json", "--limit", "1000"], env=env)
            rows = json.loads(listed.stdout) if result.exit_code == 0 and listed.exit_code == 0 else []
            shown = []
            for row in rows:
                detail = runner.invoke(app, ["traces", "show", row["conversation_id"], "--json"], env=env)
                if detail.exit_code == 0:
                    shown.append(json.loads(detail.stdout))
        finally:
            os.chdir(here)
    taken: list[int] = []
    for c, conv in enumerate(want["expect"]["conversations"]):
        where = f"conversation {c}"
        got = _match(conv, [s for i, s in enumerate(shown) if i not in taken])
        out.expected += 1  # its turns are one conversation
        if got is not None and len(got["turns"]) == len(conv["turns"]):
            out.read += 1
            taken.append(shown.index(got))
        else:
            turns = len(got["turns"]) if got is not None else 0
            out.missed.append(f"{where}: {turns} turn(s) read, {len(conv['turns'])} expected")
        for i, turn in enumerate(conv["turns"]):
            _turn_items(
                turn,
                got["turns"][i] if got is not None and i < len(got["turns"]) else None,
                f"{where} turn {i}",
                out,
            )
    return out
