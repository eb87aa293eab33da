"""Real-shaped large spans for the ingest benchmarks: GPT-4o's conversations as an airline's agent,
exported through OpenInference (`tests/corpus/tau_airline`, tasks 0-24). Each LLM span carries the whole
history and a long policy prompt, kilobytes of messages per span: what a GPT-class agent's team sends,
unlike the minimal spans of `_spans.py` (a few hundred bytes) or filon's own agent's."""

from __future__ import annotations

from pathlib import Path

from filon.tracing.files import read_otlp_file
from filon.tracing.records import SpanRecord

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "tau_airline"


def tau_traffic(tasks: int = 25) -> list[SpanRecord]:
    """The spans of the first `tasks` tasks' trials (four conversations a task), in recorded order."""
    return [r for path in sorted(FOLDER.glob("task-*.pb.gz"))[:tasks] for r in read_otlp_file(path)]
