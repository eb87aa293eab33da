"""A filon.toml that cannot be used is bad input: one line naming the file and the key, exit 2, from
every command that reads it (`filon eval` printed a traceback and exited 1, which CI reads as a failed
gate); a value of the wrong type is refused, never read as something else (`tools = "search_help"` was
read as the tools « s, e, a, r… »)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

CASES = REPO / "goldens" / "cases"


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('tools = ["a", \n', "filon.toml: Invalid value"),
        ('tools = "search_help"\n', "filon.toml: tools: a list of strings"),
        ('latency_ms = "fast"\n', "filon.toml: latency_ms: a number, not 'fast'"),
        ("loop_threshold = -3\n", "filon.toml: loop_threshold: a whole number at least 2, not -3"),
        ('tools = ["a"]\ntools = ["b"]\n', "filon.toml: Cannot overwrite a value"),
        ('escalation_tools = ["\xff"]\n'.encode("latin-1"), "filon.toml: not UTF-8 text"),
        ("judge_min_kappa = 3\n", "filon.toml: judge_min_kappa: a number between -1 and 1"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--backend", "scripted", "--ids", "faq-01", "--goldens", str(CASES)],
        ["goldens", "lint", str(CASES)],
    ],
)
def test_a_filon_toml_that_cannot_be_used_is_one_line_and_exit_2(
    tmp_path: Path, written: str | bytes, said: str, command: list[str]
) -> None:
    (tmp_path / ".git").mkdir()  # the project's root: no filon.toml above it is read
    target = tmp_path / "filon.toml"
    if isinstance(written, bytes):
        target.write_bytes(written)
    else:
        target.write_text(written, encoding="utf-8")
    env = {**os.environ, "COLUMNS": "200", "FILON_HOME": str(tmp_path / "var")}
    result = subprocess.run(
        [sys.executable, "-m", "filon.cli", *command],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and len(lines) == 1 and said in lines[0], lines
    assert str(target) in lines[0]
