"""The headline of `make bench`: one table of the current run's figures, each beside its goal.

`docs/benchmarks.md` used to carry each figure inside a paragraph of its history, so that which number
was today's, and whether its goal was met, took reading a page. Now `make bench` (`run_all.py`) writes
`var/bench.json`, renders this table from it into `var/bench.md`, and `run_all.py --docs` (or `python
bench/_table.py var/bench.json --docs`) puts it between the markers of `docs/benchmarks.md`. The figures'
history is in the CHANGELOG. A figure the run did not produce (a benchmark skipped: no valgrind, no
PostgreSQL) is shown as such, never carried over from an older run.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- bench-table:start -->", "<!-- bench-table:end -->"


@dataclass(frozen=True)
class Row:
    script: str  # bench/<script>
    key: str  # the figure in its JSON object
    label: str  # what it measures, as the table says it
    goal: float | None = None  # None: a figure with no goal of its own, shown for what it is
    at_least: bool = True  # the goal's direction
    decides: str = "wall"  # "instructions", "cpu", "wall", "count": what kind of figure it is


HEADLINE: tuple[Row, ...] = (
    Row(
        "instruction_ratios.py",
        "minimal_ratio_ingest_to_raw_instructions",
        "ingest / raw executemany, minimal spans, redaction on",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "minimal_ratio_ingest_full_rulebook_to_raw_instructions",
        "the same, every rule flagging production",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_ratio_ingest_to_raw_instructions",
        "ingest / raw executemany, the agent's spans, redaction on",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_ratio_ingest_full_rulebook_to_raw_instructions",
        "the same, every rule flagging production",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_flag_rules_instructions_per_turn",
        "flag rules per turn, the agent's spans",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_flag_rules_full_rulebook_instructions_per_turn",
        "the same, every rule",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "tau_flag_rules_full_rulebook_as_ingest_rereads_instructions_per_turn",
        "flag rules per turn, every rule, real-shaped conversations flagged again at each new turn (as ingest does)",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "tau_ratio_flags_reread_to_once",
        "the same / each conversation flagged once",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "minimal_ratio_accept_to_raw_instructions",
        "filon serve's acknowledgement (reading deferred) / raw executemany of its rows, minimal spans, redaction on",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_ratio_accept_to_raw_instructions",
        "the same, the agent's spans",
        0.4,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "tau_ratio_accept_to_raw_instructions",
        "the same, real-shaped large spans",
        0.35,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_settle_full_rulebook_instructions_per_turn",
        "its worker's reading per turn, every rule, the agent's spans",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "agent_ratio_accept_and_settle_to_raw_instructions",
        "acknowledgement and worker together / raw of every row inline ingest writes, the agent's spans",
        None,
        decides="instructions",
    ),
    Row(
        "instruction_ratios.py",
        "minimal_decode_instructions_per_span",
        "filon serve's receiver: OTLP protobuf decoded to records, per span, minimal spans",
        None,
        decides="instructions",
    ),
    Row(
        "ingest_throughput.py",
        "ratio_ingest_redacted_to_raw",
        "ingest / raw executemany, minimal spans, redaction on",
        0.4,
    ),
    Row(
        "ingest_throughput.py",
        "ratio_ingest_full_rulebook_to_raw",
        "the same, every rule flagging production",
        0.4,
    ),
    Row(
        "ingest_throughput.py",
        "agent_spans_ratio_ingest_redacted_to_raw",
        "the same, the agent's spans",
        0.4,
    ),
    Row(
        "ingest_throughput.py",
        "ratio_accept_to_raw",
        "filon serve's acknowledgement / raw executemany of its rows, minimal spans, redaction on",
        0.4,
    ),
    Row("ingest_throughput.py", "agent_spans_ratio_accept_to_raw", "the same, the agent's spans", 0.4),
    Row(
        "ingest_throughput.py",
        "agent_spans_flag_rules_us_per_turn",
        "flag rules per turn, the agent's spans (µs)",
        100,
        at_least=False,
    ),
    Row(
        "ingest_throughput.py",
        "agent_spans_flag_rules_full_rulebook_us_per_turn",
        "the same, every rule (µs)",
        100,
        at_least=False,
    ),
    Row(
        "foreign_ingest.py",
        "tau_airline_ratio_ingest_redacted_full_rulebook_to_raw",
        "ingest / raw executemany, real-shaped large spans, redaction and every rule on",
        0.35,
    ),
    Row(
        "instruction_ratios.py",
        "tau_ratio_ingest_full_rulebook_to_raw_instructions",
        "the same in instructions",
        0.35,
        decides="instructions",
    ),
    Row(
        "foreign_ingest.py",
        "tau_airline_ratio_accept_to_raw",
        "filon serve's acknowledgement / raw executemany of its rows, real-shaped large spans, redaction on",
        0.35,
    ),
    Row("ingest_postgres.py", "ratio_ingest_to_raw_copy", "PostgreSQL ingest / raw COPY", 0.45),
    Row(
        "ingest_postgres.py",
        "ratio_accept_to_raw_copy",
        "PostgreSQL, filon serve's acknowledgement / raw COPY of its rows",
        0.45,
    ),
    Row(
        "serve_throughput.py",
        "sqlite_ratio_serve_to_in_process",
        "filon serve / in-process ingest, SQLite",
        0.7,
    ),
    Row(
        "serve_throughput.py",
        "postgres_ratio_serve_to_in_process",
        "filon serve / in-process ingest, PostgreSQL",
        0.7,
    ),
    Row(
        "serve_throughput.py",
        "sqlite_deferred_ratio_serve_to_in_process",
        "filon serve (reading deferred) / the same acknowledgement in-process, SQLite",
        0.7,
    ),
    Row(
        "exporter_overhead.py",
        "ratio_filon_to_batch",
        "exporter / BatchSpanProcessor, per span",
        1.2,
        at_least=False,
    ),
    Row(
        "exporter_overhead.py",
        "ratio_filon_to_batch_instructions",
        "the same in instructions, the agent's process (all its threads), median of three rounds",
        1.2,
        at_least=False,
        decides="instructions",
    ),
    Row("scripted_model_throughput.py", "scripted_requests_per_s", "scripted model, requests/s", 500),
    Row(
        "agent_turn_overhead.py",
        "ratio_agent_own_to_bare_call",
        "agent's own time per turn / one bare generate_content call",
        None,
        at_least=False,
    ),
    Row(
        "review_queue.py",
        "ratio_first_page_1m_to_1k",
        "review queue's first page, 1M / 1k rows",
        2,
        at_least=False,
    ),
    Row(
        "eval_concurrency.py",
        "ratio_wall_to_ideal",
        "golden set replay / ideal, concurrency 8",
        1.25,
        at_least=False,
    ),
    Row(
        "judge_concurrency.py",
        "system_ratio_wall_to_ideal",
        "the same with a judge on one case in five",
        1.25,
        at_least=False,
    ),
    Row("trajectory_grader.py", "with_rules_vs_without", "grading with the rulebook / without", None),
    Row(
        "flag_precision.py",
        "tau_airline.auc_queue_order",
        "tau-bench airline 0-24: queue AUC against the verdict, in the queue's order (development figure)",
        0.8,
        decides="count",
    ),
    Row(
        "flag_precision.py",
        "tau_airline.auc_by_severity",
        "tau-bench airline 0-24: queue AUC against the verdict, by severity alone (development figure)",
        0.8,
        decides="count",
    ),
    Row(
        "flag_precision.py",
        "tau_airline.agreement_on_other_trials",
        "tau-bench airline 0-24: drafts agree on the task's other trials (development figure)",
        0.85,
        decides="count",
    ),
    Row(
        "flag_precision.py",
        "tau_airline.wrong_trials_passed",
        "tau-bench airline 0-24: wrong trials a draft passes (development figure)",
        0.1,
        at_least=False,
        decides="count",
    ),
    Row(
        "judge_heldaside.py",
        "ton_heldaside_kappa",
        "stand-in judge's kappa, held-aside, ton",
        0.6,
        decides="count",
    ),
    Row("judge_heldaside.py", "perimetre_heldaside_kappa", "the same, perimetre", 0.6, decides="count"),
)


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value).replace("|", "\\|")


def met(row: Row, value: Any) -> str:
    if row.goal is None or not isinstance(value, int | float):
        return ""
    ok = value >= row.goal if row.at_least else value <= row.goal
    return "met" if ok else "**not met**"


def render(results: dict[str, Any], when: str = "") -> str:
    """The Markdown table of `results` (`var/bench.json`'s content), one line per headline figure."""
    lines = [
        f"Figures of the run of {when}." if when else "Figures of the last run.",
        "",
        "| Benchmark | Figure | Measured in | This run | Goal | |",
        "|---|---|---|---:|---|---|",
    ]
    for row in HEADLINE:
        figures = results.get(row.script)
        if not isinstance(figures, dict):
            value: Any = "not run"
        elif "error" in figures:
            value = "failed"
        elif "skipped" in figures:
            value = "skipped"
        else:
            value = figures
            for part in row.key.split("."):  # a figure nested in a benchmark's object: "corpus.figure"
                value = value.get(part, "absent") if isinstance(value, dict) else "absent"
        goal = "" if row.goal is None else f"{'≥' if row.at_least else '≤'} {_cell(row.goal)}"
        lines.append(
            f"| `{row.script}` | {row.label} | {row.decides} | {_cell(value)} | {goal} | {met(row, value)} |"
        )
    return "\n".join(lines) + "\n"


def into_docs(table: str, docs: Path = DOCS) -> None:
    """`table` between the markers of `docs`, written whole or not at all."""
    text = docs.read_text(encoding="utf-8")
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{docs}: no '{START}' … '{END}' markers to put the table between")
    new = f"{text[: start + len(START)]}\n{table}{text[end:]}"
    tmp = docs.with_name(docs.name + ".tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, docs)


def main(argv: list[str]) -> int:
    """`python bench/_table.py var/bench.json [--docs [PATH]]`: print the table of that run; with
    `--docs`, also put it in docs/benchmarks.md (or PATH)."""
    if not argv or argv[0].startswith("-"):
        print("usage: python bench/_table.py var/bench.json [--docs [PATH]]", file=sys.stderr)
        return 2
    source = Path(argv[0])
    try:
        results = json.loads(source.read_text(encoding="utf-8"))
        if not isinstance(results, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        print(f"{source}: cannot read the benchmark results: {exc}", file=sys.stderr)
        return 2
    when = datetime.fromtimestamp(source.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M UTC")
    table = render(results, when)
    print(table, end="")
    if "--docs" in argv:
        rest = argv[argv.index("--docs") + 1 :]
        try:
            into_docs(table, Path(rest[0]) if rest else DOCS)
        except (OSError, ValueError) as exc:
            print(str(exc), file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
