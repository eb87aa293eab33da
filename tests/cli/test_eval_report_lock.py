"""Two `filon eval` given one report (issue 45): the second stops at once, in one line, and the report
stays the first run's: no run prints « Rapport : x.json » while the file holds another run's verdict."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()


def test_a_second_run_on_a_held_report_stops_and_leaves_it_alone(tmp_path: Path) -> None:
    report = tmp_path / "same.json"
    report.write_text('{"decision": "the other run"}', encoding="utf-8")
    lock = os.open(tmp_path / ".same.json.lock", os.O_RDWR | os.O_CREAT)  # another run holds it
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(lock, b"4242")
        held = runner.invoke(
            app, ["eval", "--backend", "scripted", "--ids", "faq-01", "--report", str(report)]
        )
    finally:
        os.close(lock)
    assert held.exit_code == 2 and "another filon eval is writing it (pid 4242)" in held.stderr, held.output
    assert "Rapport" not in held.output
    assert report.read_text(encoding="utf-8") == '{"decision": "the other run"}'
    free = runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "faq-01", "--report", str(report)])
    assert free.exit_code == 0, free.output  # released: the next run writes its own
    assert "the other run" not in report.read_text(encoding="utf-8")
    again = runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "faq-01", "--report", str(report)])
    assert again.exit_code == 0  # the lock went with the run that held it


def test_a_second_run_on_a_held_junit_or_page_stops_and_leaves_it_alone(tmp_path: Path) -> None:
    """Each file a run writes is held like its report: two runs with their own reports and one --junit
    had left the first saying « JUnit : same.xml » of a file that held the other's failures."""
    for option, name in (("--junit", "same.xml"), ("--html", "same.html")):
        shared = tmp_path / name
        shared.write_text("the other run's", encoding="utf-8")
        lock = os.open(tmp_path / f".{name}.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            mine = tmp_path / f"mine-{name}.json"
            held = runner.invoke(
                app,
                [
                    "eval",
                    "--backend",
                    "scripted",
                    "--ids",
                    "faq-01",
                    "--report",
                    str(mine),
                    option,
                    str(shared),
                ],
            )
        finally:
            os.close(lock)
        assert held.exit_code == 2 and f"{option} {shared}: another filon eval" in held.stderr, held.output
        assert shared.read_text(encoding="utf-8") == "the other run's" and not mine.exists()
