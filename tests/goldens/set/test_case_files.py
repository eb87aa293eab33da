"""Files in the set that are not cases (issue 45's hostile pass): a broken link, a folder or a pipe named
`x.json`, a binary, a link out of the set, a file too large. Each is one problem naming the file through
`filon goldens lint` (exit 1, an error), never a traceback or a hang; the other cases still load."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.set.case_files import MAX_CASE_BYTES
from tests.conftest import copy_set

runner = CliRunner()


def lint(cases: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["goldens", "lint", str(cases)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def odd_file(cases: Path, kind: str, outside: Path) -> Path:
    bad = cases / "zz-bad.json"
    if kind == "broken link":
        bad.symlink_to(cases / "nowhere.json")
    elif kind == "folder":
        bad.mkdir()
    elif kind == "pipe":
        os.mkfifo(bad)
    elif kind == "binary":
        bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 10)
    elif kind == "outside":
        outside.write_text((cases / "faq-01.json").read_text(encoding="utf-8").replace("faq-01", "zz-bad"))
        bad.symlink_to(outside)
    elif kind == "huge":
        bad.write_text('{"id": "zz-bad", "x": "' + "a" * MAX_CASE_BYTES + '"}', encoding="utf-8")
    return bad


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("broken link", "broken symbolic link"),
        ("folder", "not a regular file"),
        ("pipe", "not a regular file"),
        ("binary", "not UTF-8 text"),
        ("outside", "outside the set"),
        ("huge", "a case holds at most"),
    ],
)
def test_a_file_that_is_no_case_is_one_line_naming_it(tmp_path: Path, kind: str, said: str) -> None:
    cases = copy_set(tmp_path / "cases")
    bad = odd_file(cases, kind, tmp_path / "elsewhere.json")
    code, out = lint(cases)
    assert code == 1  # lint: the set has errors
    lines = [line for line in out.splitlines() if "zz-bad.json" in line]
    assert len(lines) == 1 and said in lines[0], out
    assert "faq-01" not in lines[0]  # the other cases load
    if kind == "outside":
        bad.unlink()
        bad.write_text((tmp_path / "elsewhere.json").read_text(encoding="utf-8"), encoding="utf-8")
        assert "zz-bad.json" not in lint(cases)[1]  # copied in, the same case is read


def test_a_link_inside_the_set_is_followed(tmp_path: Path) -> None:
    cases = copy_set(tmp_path / "cases")
    (cases / "faq-01.json").rename(tmp_path / "cases" / "faq-01.orig")
    (cases / "faq-01.json").symlink_to(cases / "faq-01.orig")
    _, out = lint(cases)
    assert "faq-01.json" not in out, out


def test_eval_on_such_a_set_names_the_file_and_stops(tmp_path: Path) -> None:
    cases = copy_set(tmp_path / "cases")
    odd_file(cases, "pipe", tmp_path / "elsewhere.json")
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", str(cases)])
    assert result.exit_code == 4 and "zz-bad.json: not a regular file" in result.output, result.output
    assert "Traceback" not in result.output
