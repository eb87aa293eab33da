"""Every flag filon raises on conversations nobody here wrote, reason for reason, against a reviewed snapshot.

The flag rules are rewritten for speed (a pattern that skips ahead, a cache, a guard in front of a search),
and each such rewrite must leave what they find unchanged. Until now that was checked by scripts outside the
suite, once; this keeps it: the tau-bench airline conversations (tasks 0-24, GPT-4o through OpenInference,
`tests/corpus/tau_airline`) go through `filon ingest` with the settings a team would write for that agent and
the rulebook as it ships, and `traces list --json` must give the same flags: kind, cause, severity, reason and
turn, conversation by conversation. Beside them, in French, the reference agent's scripted traffic on its
shortened prompt (`filon traffic`, seed 7: the same customers every run), whose flags are security,
escalation and write ones. A change meant to alter what filon finds updates the snapshot
(`pytest tests/miner/rules/test_flags_snapshot.py --snapshot-update`), and its diff is reviewed with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension
from typer.testing import CliRunner

from filon.cli import app
from tests.corpus import tau

runner = CliRunner()
REPO = Path(__file__).resolve().parents[3]


def _listed(env: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    listed = runner.invoke(app, ["traces", "list", "--json", "--limit", "1000"], env=env)
    assert listed.exit_code == 0, listed.output
    conversations = json.loads(listed.stdout[listed.stdout.index("[") :])
    found = {
        c["conversation_id"]: sorted(
            c["reasons"], key=lambda r: (r["turn"], r["kind"], r["cause"], r["reason"])
        )
        for c in conversations
    }
    return dict(sorted(found.items()))


def _env(tmp_path: Path) -> dict[str, str]:
    return {"FILON_DB": f"sqlite:///{tmp_path / 'filon.db'}", "FILON_HOME": str(tmp_path)}


def test_the_flags_of_real_conversations_are_the_reviewed_ones(
    tmp_path: Path, monkeypatch: Any, snapshot: SnapshotAssertion
) -> None:
    monkeypatch.chdir(tmp_path)  # filon.toml is read from the working folder
    (tmp_path / "filon.toml").write_text(tau.FILON_TOML)
    ingested = runner.invoke(
        app, ["ingest", *map(str, tau.payloads()), "--sample-rate", "1"], env=_env(tmp_path)
    )
    assert ingested.exit_code == 0, ingested.output
    flags = _listed(_env(tmp_path))
    assert len(flags) == len(tau.trials())  # every conversation listed, flagged or not
    assert sum(map(len, flags.values())) > 100  # grounding, writes, tool errors, loops, security...
    assert flags == snapshot(extension_class=JSONSnapshotExtension)


def test_the_flags_of_the_agents_french_traffic_are_the_reviewed_ones(
    tmp_path: Path, snapshot: SnapshotAssertion
) -> None:
    command = ["traffic", "--backend", "scripted", "--seed", "7", "-n", "60", "--concurrency", "1"]
    command += ["--sample-rate", "1", "--prompt", str(REPO / "agent" / "prompts" / "court.md")]
    made = runner.invoke(app, command, env=_env(tmp_path))
    assert made.exit_code == 0, made.output
    flags = _listed(_env(tmp_path))
    assert sum(map(len, flags.values())) > 10  # security, escalation, writes
    assert flags == snapshot(extension_class=JSONSnapshotExtension)
