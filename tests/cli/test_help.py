"""Help a user reads: usage in capitals, flags without a value's type, defaults as they are."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.rules.config import ESCALATION

runner = CliRunner()


def test_help_reads_as_usage_not_as_types() -> None:
    """Boolean flags take no value and arguments read in capitals: no `<bool>`, no `{conversation_id}`."""
    shown = runner.invoke(app, ["traces", "list", "--help"], env={"COLUMNS": "100"}).output
    assert "<bool>" not in shown
    assert "--json" in shown
    usage = runner.invoke(app, ["incident", "add", "--help"], env={"COLUMNS": "100"}).output
    assert "CONVERSATION_ID" in usage
    assert "{" not in usage


@pytest.mark.parametrize("command", [["ingest"], ["serve"], ["traces", "doctor"]])
def test_escalation_help_names_every_default(command: list[str]) -> None:
    shown = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400"}).output
    assert "--escalation-tool" in shown
    said = " ".join(shown.split())
    for pattern in ESCALATION:
        assert pattern in said, pattern


def _commands(command: object, path: list[str]) -> list[list[str]]:
    found = [path]
    for name, sub in getattr(command, "commands", {}).items():  # a group (typer vendors its own click)
        found += _commands(sub, [*path, name])
    return found


def test_help_reads_whole_at_80_columns() -> None:
    """Every command's help at 80 columns: an example fits on its line (a user copies it), and a paragraph
    is wrapped by the terminal, not broken by hand halfway through a line (`eval --help` once read
    « 2 usage, » alone on a line)."""
    broken: list[str] = []
    for path in _commands(typer.main.get_command(app), []):
        lines = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"}).output.splitlines()
        text = lines[: next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))]
        for line, after in itertools.pairwise(text):
            here, there = line.strip(), after.strip()
            if not (here and there) or there.startswith(("Example", "-", "•")):
                continue
            if here.startswith("Example") or (
                len(line.rstrip()) < 55 and not here.startswith(("Usage", "-", "•"))
            ):
                broken.append(f"{' '.join(path)}: {here!r} then {there!r}")
    assert not broken, broken


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--backend", "scriptd", "--goldens", "no/such/cases"],
        ["ingest", "no/such/export.pb"],
        ["judge", "calibrate", "--backend", "scriptd", "--goldens", "no/such/cases"],
        ["ingest", "goldens"],  # a folder: « Is a directory », exit 1, before
    ],
)
def test_an_error_is_one_line_with_no_blank_line_around_it(command: list[str], tmp_path: Path) -> None:
    """rich's progress bar, stopped on a console that is not a terminal, printed an empty line: a
    newcomer's `filon eval` error came after a blank line, `filon ingest`'s before one."""
    result = runner.invoke(app, command, env={"FILON_DB": f"sqlite:///{tmp_path / 'f.db'}"})
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("store: ")]
    assert lines and lines[0].startswith("error: ") and all(line.strip() for line in lines), lines


@pytest.mark.parametrize(
    ("args", "code"), [(["goldens", "lint", "goldens/cases"], 0), (["ingest", "no/such.pb"], 2)]
)
def test_a_command_piped_into_head_keeps_its_own_exit_code(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """`filon goldens lint | head -1` exited 1 (rich's answer to a closed pipe): a CI script read a
    passing gate piped into `head` as a failed one. The reader leaves after one line; the code stays."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "FILON_DB": f"sqlite:///{tmp_path / 'f.db'}", "COLUMNS": "80"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "filon.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdout is not None
    proc.stdout.read(1)  # the first byte, then the reader goes, as `head -c 1` does
    proc.stdout.close()
    assert proc.wait(timeout=120) == code


@pytest.mark.parametrize("command", [["--help"], ["traces", "--help"], ["eval", "--help"]])
def test_a_help_piped_into_head_exits_0(command: list[str]) -> None:
    """`filon --help | head`: rich's console exited 1 when head left; a help read in part is no failure."""
    import os
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "filon.cli", *command],
        env={**os.environ, "COLUMNS": "80"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err, err


def test_a_port_in_use_is_named_with_the_way_out() -> None:
    """`filon model serve` on a taken port said « [Errno 98] Address already in use », port unnamed."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["model", "serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "--port 0" in result.stderr
