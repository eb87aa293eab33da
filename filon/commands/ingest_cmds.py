"""`filon ingest`: OTLP files into the store, through the one ingest path; every good span stored, each bad
one named."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from filon.commands.common import EscalationOpt, Exit, console, err_console, fail, progress_bar, say
from filon.commands.traces_cmds import open_store
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.tracing.records import SpanRecord


def read_or_say(path: Path, rejected: list[str] | None = None) -> list[SpanRecord]:
    """The spans of an OTLP file, or [] after one line on stderr naming the file and what it is; with
    `rejected`, its bad spans and lines are skipped and named there."""
    from filon.tracing.files import read_otlp_file, what_it_is
    from filon.tracing.records import DecodeError

    try:
        records = read_otlp_file(path, rejected)
    except OSError as exc:
        err_console.print(say("cli.error_file", path=path, why=exc.strerror), markup=False)
        return []
    except DecodeError as exc:
        said = what_it_is(path)
        err_console.print(
            say("cli.error_file", path=path, why=said if "not OTLP" in said else exc), markup=False
        )
        return []
    if not records and not rejected:
        err_console.print(say("cli.error_file", path=path, why=what_it_is(path)), markup=False)
    return records


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="OTLP files: .pb, .json, .jsonl, optionally .gz.")],
    escalation_tool: EscalationOpt = None,
    sample_rate: Annotated[
        float, typer.Option("--sample-rate", help="Share of unflagged conversations kept.")
    ] = 1.0,
) -> None:
    """Mine OTLP files into the store; the same span twice is stored once.

    A file that is not OTLP is refused whole; in one that is, every good span is stored and each bad
    one (a span that does not decode, a line that is not JSON, a value the store refuses) is named on
    stderr, and the exit is 1; a path that is not there exits 2. Spans are stored in batches of 5,000,
    each committed: ctrl-C says how many are in, and the same command again stores the rest (exit 130).

    Example: filon ingest traces.pb export.jsonl.gz --escalation-tool handoff
    """
    from functools import partial

    from filon.tracing.ingest import Ingestor, replaying
    from filon.tracing.ingest_stats import IngestStats
    from filon.tracing.redact import Redactor, load_secret, redaction_enabled

    if not 0 <= sample_rate <= 1:
        fail(say("cli.not_between", option="--sample-rate", value=sample_rate))
    total, bad = IngestStats(), 0
    # on a terminal, spans stored so far (a large export takes a while); gone when done, nothing in a pipe
    progress = progress_bar("ingest")
    read: list[str] = []  # said once the bar is gone: standard output and the bar's line never mix
    refused: list[tuple[Path, list[str]]] = []
    missing = 0  # files that are not there at all: bad input (2), not a bad file (1)
    try:  # from the store's opening on: a ctrl-C anywhere says what is stored
        store = open_store()
        try:
            config = FlagConfig.load(escalation_tools=escalation_tool)
        except ValueError as exc:
            fail(exc)
        redactor = Redactor(load_secret(), config.test_identities) if redaction_enabled() else None
        ingest_one = partial(replaying, Ingestor(store, config, redactor, sample_rate).ingest)
        with progress:
            for path in paths:
                if not path.exists() or path.is_dir():  # bad input (2): nothing to read there
                    said = say("cli.a_folder") if path.is_dir() else say("cli.no_such_file")
                    err_console.print(say("cli.error_file", path=path, why=said), markup=False)
                    missing += 1
                    continue
                rejected: list[str] = []
                records = read_or_say(path, rejected)
                if not records and not rejected:  # unreadable, or "0 spans": exit 0 would hide a wrong file
                    bad += 1
                    continue
                _ingest_file(path, records, rejected, ingest_one, progress, total, read, refused)
    except KeyboardInterrupt:
        progress.stop()
        _said_so_far(read, refused)
        # each batch is committed as it goes: those are in the store
        err_console.print(say("cli.ingest_interrupted", spans=total.spans), markup=False)
        raise typer.Exit(int(Exit.INTERRUPTED)) from None
    _said_so_far(read, refused)
    if not read:  # every file failed, each said on stderr: a summary of nothing would read as a result
        raise typer.Exit(int(Exit.USAGE if missing and not bad else Exit.FAILED))
    _summary(total)
    if missing:  # a path that is not there is bad input, said on stderr
        raise typer.Exit(int(Exit.USAGE))
    if bad or refused:
        raise typer.Exit(int(Exit.FAILED))


def _summary(total: Any) -> None:
    """What the whole run stored, and what to know of it."""
    from filon.tracing.summary import notes

    kinds = ", ".join(f"{k} {v}" for k, v in sorted(total.flag_kinds.items()))
    figures = {"spans": total.spans, "new": total.new_spans, "turns": total.turns, "kept": total.kept}
    figures |= {"conversations": total.conversations, "flagged": total.flagged}
    kinds_said = say("cli.in_brackets", text=kinds) if kinds else ""
    console.print(say("cli.ingest_summary", **figures, kinds=kinds_said), markup=False)
    for line in notes(total):
        console.print(line, markup=False)


def _ingest_file(
    path: Path,
    records: list[Any],
    rejected: list[str],
    ingest_one: Any,
    progress: Any,
    total: Any,
    read: list[str],
    refused: list[tuple[Path, list[str]]],
) -> None:
    """One file's spans stored in batches (each committed: what a ctrl-C leaves is kept); its line in
    `read`, its rejected spans in `refused`."""
    from filon.tracing.isolate import store_requests
    from filon.tracing.records import batched

    task = progress.add_task(path.name, total=len(records))
    kept = len(records)
    for batch in batched(records, 5000):
        (outcome,) = store_requests(ingest_one, [batch])
        if outcome.down is not None:
            progress.stop()
            _said_so_far(read, refused)
            fail(say("cli.store_down", path=path, why=outcome.down), Exit.FAILED)
        total.add(outcome.stats)
        rejected += outcome.rejected
        kept -= len(outcome.rejected)
        for note in outcome.notes[:5]:  # values made safe to be stored: said, nothing lost
            err_console.print(say("cli.note_file", path=path, note=note), markup=False)
        progress.advance(task, len(batch))
    progress.remove_task(task)
    more = say("cli.rejected_count", n=len(rejected)) if rejected else ""
    read.append(say("cli.file_read", path=path, kept=kept, rejected=more))
    if rejected:
        refused.append((path, rejected))


def _said_so_far(read: list[str], refused: list[tuple[Path, list[str]]], shown: int = 5) -> None:
    """Each file read (stdout), and the spans each one had rejected (stderr, the first few by name)."""
    for line in read:
        console.print(line, markup=False)
    for path, reasons in refused:
        for reason in reasons[:shown]:
            err_console.print(say("cli.error_file", path=path, why=reason), markup=False)
        if len(reasons) > shown:
            more = say("cli.more_rejected", n=len(reasons) - shown)
            err_console.print(say("cli.error_file", path=path, why=more), markup=False)
