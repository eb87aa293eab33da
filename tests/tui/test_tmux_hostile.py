"""Trace text that tries to drive the terminal, shown by the commands in a real terminal (tmux): the
pane's title stays, the screen is not cleared, no hyperlink is made; the escapes are shown as text.
Skipped, saying so, where tmux is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.cli.test_ingest_bad_spans import request, span
from tests.conftest import REPO

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
# a tmux server of this process's own: in a parallel run, another worker's sessions would share the
# default server, and a session's size would follow the other's client
TMUX = ["tmux", "-L", f"filon-tests-{os.getpid()}"]
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://evil.invalid\x1b\\clic\x1b]8;;\x1b\\\x9b31m rouge"


def tmux(*args: str) -> str:
    # a session of its own, even when the tests run inside tmux; its size is its own, not a COLUMNS inherited
    outside = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "TMUX": ""}
    return subprocess.run([*TMUX, *args], capture_output=True, text=True, check=True, env=outside).stdout


def test_trace_text_cannot_drive_a_real_terminal(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'hostile.db'}"
    export = tmp_path / "hostile.jsonl"
    hostile = span(1, f"Bonjour {HOSTILE}")
    hostile["name"] = f"invoke_agent {HOSTILE}"
    tool = {**span(2, ""), "traceId": hostile["traceId"], "parentSpanId": hostile["spanId"]}
    tool["name"] = "execute_tool"
    tool["attributes"] = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": f"outil{HOSTILE}"}},
    ]
    export.write_text(request(hostile, tool) + "\n", encoding="utf-8")
    env = {"FILON_DB": db, "FILON_SECRET": "tests", "FILON_HOME": str(tmp_path)}
    assert CliRunner().invoke(app, ["ingest", str(export)], env=env).exit_code == 0
    session = f"filon-hostile-{uuid.uuid4().hex[:8]}"
    filon = f"{sys.executable} -m filon.cli"
    script = tmp_path / "run.sh"
    script.write_text(
        f"echo BEFORE-THE-COMMANDS\n{filon} traces show web:file-1\n{filon} traces list\n"
        f"{filon} ingest {export}\n{filon} traces doctor {export}\n{filon} draft web:file-1\n"
        "echo AFTER-THE-COMMANDS\nsleep 600\n",
        encoding="utf-8",
    )
    environment = " ".join(f"{k}={v}" for k, v in env.items())
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO),
         f"env {environment} TERM=xterm-256color bash {script}")  # fmt: skip
    try:
        title = tmux("display-message", "-p", "-t", session, "#{pane_title}")
        deadline = time.monotonic() + 60
        while "AFTER-THE-COMMANDS" not in (screen := tmux("capture-pane", "-p", "-t", session, "-S", "-100")):
            assert time.monotonic() < deadline, screen
            time.sleep(0.1)  # polling a real terminal for the script's end, bounded
        escaped = tmux("capture-pane", "-p", "-e", "-t", session, "-S", "-100")
        after = tmux("display-message", "-p", "-t", session, "#{pane_title}")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)
    assert "pwned" not in after and after == title  # no OSC 0 reached the terminal
    assert "BEFORE-THE-COMMANDS" in screen  # no ESC[2J cleared it
    assert "\\x1b]0;pwned" in screen or "\\x1b" in screen  # the escape shown as text
    assert "\x1b]8;;http://evil.invalid" not in escaped  # no hyperlink made
    assert "\\x9b31m rouge" in screen  # the one-byte CSI shown, not obeyed
