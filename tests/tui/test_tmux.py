"""What a person sees in a real terminal: `filon review` under tmux at 80×24 and 160×48, read back with
capture-pane. The SVG snapshots fix every pixel on fixed data; this checks the real program, in a real
terminal, keeps what must stay visible: the whole ids, the severity, reason, age, status and (from 120 columns) holder columns, and
the footer's save/quit/help/failures keys. Skipped, saying so, where tmux is not installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from filon.miner.store import Store
from tests.conftest import REPO, copy_set
from tests.tui.data import fill

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
# a tmux server of this process's own: in a parallel run, another worker's sessions would share the
# default server, and a session's size would follow the other's client
TMUX = ["tmux", "-L", f"filon-tests-{os.getpid()}"]


def capture(session: str) -> str:
    return subprocess.run(
        [*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True, check=True
    ).stdout


def wait_for(session: str, needle: str, timeout_s: float = 30) -> str:
    """Poll the pane until it shows `needle` (bounded): the app draws when it is ready, not on a clock."""
    deadline = time.monotonic() + timeout_s
    while True:
        screen = capture(session)
        if needle in screen:
            return screen
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} never appeared:\n{screen}")
        time.sleep(0.1)  # polling a real terminal, bounded by the deadline


def normalised(screen: str, tmp_path: Path) -> str:
    """The capture without what moves between runs: the temporary folder, the ages, and the header's
    icon (drawn a frame after the rest: a capture may come between the two)."""
    screen = screen.replace(str(tmp_path), "TMP")
    # the header cuts a long folder where its length says, which differs in a parallel run's worker
    screen = re.sub(r"(cases in )\S+", r"\1TMP", screen)
    # the header's icon and the title centred beside it: drawn a frame apart, so kept out of the comparison
    screen = re.sub(r"(?m)^[ ⭘]*(filon review —)", r"\1", screen)
    return re.sub(r"(?<!\w)\d+[smhd](?!\w)", "AGE", screen).rstrip() + "\n"


@pytest.mark.parametrize(("width", "height"), [(80, 24), (160, 48)])
def test_review_in_a_real_terminal(width: int, height: int, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 'review.db'}"
    fill(Store.open(db))
    copy_set(tmp_path / "cases")
    session = f"filon-{uuid.uuid4().hex[:8]}"
    env = {
        "FILON_DB": db,
        "FILON_GOLDENS": str(tmp_path / "cases"),
        "FILON_SECRET": "tests",
        "TERM": "xterm-256color",
    }
    command = " ".join(
        [*(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "filon.cli", "review", "--backend", "scripted",
         "--reviewer", "alice"]
    )  # fmt: skip
    subprocess.run(
        [
            *TMUX,
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(REPO),
            command,
        ],
        check=True,
        env={**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "TMUX": ""},
    )
    try:
        queue = wait_for(session, "web:leak")
        wait_for(session, "Quit")  # the footer too: the screen is complete
        queue = capture(session)
        assert normalised(queue, tmp_path) == snapshot  # what a person sees, kept as text
        columns = ["severity", "conversation", "why", "age", "status"]
        columns += ["holder"] if width >= 120 else []  # narrower, the holder shows in status (« @alice »)
        for column in columns:
            assert column in queue, queue
        footer = queue.strip().splitlines()[-1]
        for key in ("q Quit", "? Help", "F Failures"):
            assert key in footer, footer
        subprocess.run([*TMUX, "send-keys", "-t", session, "Enter"], check=True)
        wait_for(session, "d Draft")
        opened = wait_for(
            session, "1 turn(s)"
        )  # the title once the conversation and its claim have come back
        footer = opened.strip().splitlines()[-1]
        for key in ("d Draft", "x Dismiss", "q Quit", "? Help"):  # all of it, at 80 columns too
            assert key in footer, footer
        subprocess.run([*TMUX, "send-keys", "-t", session, "d"], check=True)
        editor = wait_for(session, "Edit check")  # the footer drawn: the screen is complete
        footer = editor.strip().splitlines()[-1]
        for key in ("Save", "q Quit", "? Help"):
            assert key in footer, footer
        subprocess.run([*TMUX, "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 30
        while subprocess.run([*TMUX, "has-session", "-t", session], capture_output=True).returncode == 0:
            assert time.monotonic() < deadline, "filon review did not quit on q"
            time.sleep(0.1)  # the session ends when the app exits: polled, bounded
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)
    assert Store.open(db).reviews.review_queue(status="claimed") == []  # q gave the claim back
