"""`make bench`'s headline table (`bench/_table.py`), through its command line: what a run measured
beside each goal, what it did not measure said as such, and the docs' table replaced whole or not at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "_table.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def _line(out: str, label: str) -> str:
    return next(line for line in out.splitlines() if label in line)


def test_each_figure_beside_its_goal_and_what_was_not_run_said(tmp_path: Path) -> None:
    results = {
        "instruction_ratios.py": {"minimal_ratio_ingest_to_raw_instructions": 0.147},
        "exporter_overhead.py": {"ratio_filon_to_batch": 1.1},
        "ingest_postgres.py": {"skipped": "no PostgreSQL"},
        "serve_throughput.py": {"error": ["boom"]},
        "flag_precision.py": {"tau_airline": {"auc_queue_order": 0.81, "auc_by_severity": 0.79}},
    }
    source = tmp_path / "bench.json"
    source.write_text(json.dumps(results), encoding="utf-8")
    done = _run(str(source))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "0.147" in _line(out, "ingest / raw executemany, minimal spans, redaction on |")
    assert "**not met**" in _line(out, "ingest / raw executemany, minimal spans, redaction on |")
    assert _line(out, "exporter /").rstrip().endswith("| met |")
    assert "| skipped |" in _line(out, "PostgreSQL ingest")
    assert "| failed |" in _line(out, "SQLite")
    assert "| not run |" in _line(out, "real-shaped large spans, redaction and every rule on |")
    assert "0.81" in _line(out, "queue AUC") and "| met |" in _line(out, "queue AUC")
    assert "0.79" in _line(out, "by severity alone") and "**not met**" in _line(out, "by severity alone")


def test_the_docs_table_is_replaced_between_its_markers_only(tmp_path: Path) -> None:
    source = tmp_path / "bench.json"
    source.write_text(json.dumps({"exporter_overhead.py": {"ratio_filon_to_batch": 1.3}}), encoding="utf-8")
    docs = tmp_path / "benchmarks.md"
    docs.write_text(
        "# Benchmarks\n\nbefore\n<!-- bench-table:start -->\nold table\n<!-- bench-table:end -->\nafter\n",
        encoding="utf-8",
    )
    done = _run(str(source), "--docs", str(docs))
    assert done.returncode == 0, done.stderr
    text = docs.read_text(encoding="utf-8")
    assert "old table" not in text and "1.3" in text
    assert text.startswith("# Benchmarks\n\nbefore\n<!-- bench-table:start -->\n")
    assert text.endswith("<!-- bench-table:end -->\nafter\n")


def test_bad_input_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "bench.json"
    broken.write_text("{not json", encoding="utf-8")
    done = _run(str(broken))
    assert done.returncode == 2 and "bench.json: cannot read" in done.stderr
    assert "Traceback" not in done.stderr
    source = tmp_path / "ok.json"
    source.write_text("{}", encoding="utf-8")
    docs = tmp_path / "benchmarks.md"
    docs.write_text("no markers here\n", encoding="utf-8")
    done = _run(str(source), "--docs", str(docs))
    assert done.returncode == 2 and "no '<!-- bench-table:start -->'" in done.stderr
    assert docs.read_text(encoding="utf-8") == "no markers here\n"
