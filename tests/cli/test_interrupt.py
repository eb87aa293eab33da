"""ctrl-C in CI: `filon eval` prints a line per case as it finishes, and when interrupted writes its report
marked as such and exits 130 (never 0 or 1); `filon traffic` says what it kept and exits 130 too.
A real SIGINT to a real process, sent once the process has shown it is under way."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def start(args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "FILON_SCRIPTED_LATENCY_MS": "150",
        "FILON_DB": f"sqlite:///{tmp_path / 'f.db'}",
        "PYTHONUNBUFFERED": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "filon.cli", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a pytest-xdist worker ignores SIGINT, and a child inherits an ignored signal: ctrl-C as a
        # terminal would deliver it needs the default disposition back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.default_int_handler),
    )


def test_eval_streams_case_lines_and_an_interrupt_is_reported_and_exit_130(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = start(["eval", "--backend", "scripted", "--concurrency", "1", "--report", str(report)], tmp_path)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # a case line, printed as the case finished: no terminal needed
    assert first.split()[0] in ("OK", "ÉCHEC", "ERREUR"), first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrompu :" in err  # the console's French, as the lines above
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["interrompu"] is True and doc["porte"]["decision"] == "interrompu"
    assert 1 <= len(doc["cas"]) < 32  # what was done, and not the rest


def test_traffic_interrupted_says_what_it_kept_and_exits_130(tmp_path: Path) -> None:
    proc = start(
        ["traffic", "-n", "400", "--backend", "scripted", "--concurrency", "1", "--seed", "3"], tmp_path
    )
    assert proc.stderr is not None
    named = proc.stderr.readline()  # the store it writes, named first
    assert named.startswith("store: ") and str(tmp_path / "f.db") in named, named
    banner = proc.stderr.readline()  # the stand-in announces itself once the run is under way
    assert "stand-in" in banner
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted after" in out and "of 400 conversations" in out and "kept" in out


def test_an_interrupted_eval_never_replaces_a_whole_report(tmp_path: Path) -> None:
    """A newcomer's ctrl-C replaced the last complete report (the baseline a comparison reads) with a
    partial one: the partial one now goes beside it, and says so."""
    report = tmp_path / "r.json"
    whole = '{"the earlier run": "whole"}'
    report.write_text(whole, encoding="utf-8")
    proc = start(["eval", "--backend", "scripted", "--concurrency", "1", "--report", str(report)], tmp_path)
    assert proc.stdout is not None
    proc.stdout.readline()  # under way
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert report.read_text(encoding="utf-8") == whole
    beside = tmp_path / "r.interrupted.json"
    assert json.loads(beside.read_text(encoding="utf-8"))["interrompu"] is True
    said = f"rapportés dans {beside} (le rapport du run précédent est gardé)"  # the console's language
    assert said in err
    assert f"Rapport : {beside}" in out


def test_ingest_interrupted_says_how_many_spans_are_stored_and_exits_130(tmp_path: Path) -> None:
    """A newcomer's ctrl-C in a long ingest exited 130 with no word of what was kept: now it says how
    many spans its committed batches hold, which is what the store holds."""
    from filon.miner.store import Store

    def span(n: int) -> dict[str, object]:
        messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"question {n}"}]}])
        return {
            "traceId": f"{n:032x}", "spanId": f"{n:016x}", "name": "invoke_agent",
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                {"key": "gen_ai.conversation.id", "value": {"stringValue": f"web:big-{n // 4}"}},
                {"key": "gen_ai.input.messages", "value": {"stringValue": messages}},
            ],
        }  # fmt: skip

    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as out:
        for n in range(40_000):
            out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span(n)]}]}]}) + "\n")
    proc = start(["ingest", str(big)], tmp_path)
    assert proc.stderr is not None
    proc.stderr.readline()  # « store: … »: the command is under way
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    said = re.search(r"interrupted: (\d+) span\(s\) stored", err)
    assert said is not None, err
    store = Store.open(f"sqlite:///{tmp_path / 'f.db'}")
    with store.engine.connect() as conn:
        [(count,)] = conn.exec_driver_sql("SELECT COUNT(*) FROM spans").all()
    assert count == int(said.group(1)) < 40_000, err
