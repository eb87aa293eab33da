"""`filon eval`: replay the golden set against the model and gate on it (exit code = decision)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from filon.commands import eval_history, eval_show
from filon.commands.common import (
    BackendOpt,
    Exit,
    ModelOpt,
    ModelUrlOpt,
    PromptOpt,
    console,
    console_language,
    err_console,
    fail,
    progress_bar,
    say,
)

if TYPE_CHECKING:
    from rich.progress import Progress

    from filon.miner.settings import Settings


def _settings() -> Settings:
    from filon.miner.settings import SettingsError, settings

    try:
        return settings()
    except SettingsError as exc:
        fail(exc)


def _default_threshold() -> float:
    return _settings().eval_threshold


app = typer.Typer()
MargeOpt = Annotated[
    float, typer.Option("--marge", help="Non-inferiority margin: B may be this much lower (default 0.05).")
]
MarkdownOpt = Annotated[
    Path | None,
    typer.Option("--markdown", help="Write the comparison as Markdown here (and to $GITHUB_STEP_SUMMARY)."),
]


@app.callback(invoke_without_command=True)
def eval_command(
    ctx: typer.Context,
    goldens: Annotated[
        str | None,
        typer.Option("--goldens", help="Folder of cases (default FILON_GOLDENS or goldens/cases)."),
    ] = None,
    ids: Annotated[str | None, typer.Option("--ids", help="Only these case ids, comma-separated.")] = None,
    threshold: Annotated[
        float | None, typer.Option("--seuil", help="Score threshold (default EVAL_SEUIL or 0.9).")
    ] = None,
    blocking: Annotated[
        list[str] | None, typer.Option("--bloquant", help="Blocking category (repeatable; default securite).")
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Attempts per case; blocking categories must pass all.")
    ] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Cases replayed at once.")] = 4,
    backend: BackendOpt = "gemini",
    model: ModelOpt = None,
    model_url: ModelUrlOpt = None,
    prompt: PromptOpt = None,
    report: Annotated[
        Path | None,
        typer.Option("--report", help="Where the JSON report goes (default FILON_HOME/eval-rapport.json)."),
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Also write JUnit XML here.")] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the run report to share here: one self-contained page (score by prompt over "
            "the recorded runs, pass rate by category, the five worst with their turns, blocking rules, "
            "coverage by failure group).",
        ),
    ] = None,
    summary: Annotated[
        Path | None,
        typer.Option(
            "--summary",
            help="Also write that report as Markdown here (a CI job summary); without it, appended to "
            "$GITHUB_STEP_SUMMARY when that is set.",
        ),
    ] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", help="A previous report to diff against.")
    ] = None,
    max_error_rate: Annotated[
        float, typer.Option("--max-error-rate", help="Infrastructure error budget.")
    ] = 0.1,
    compare_with: Annotated[
        Path | None,
        typer.Option("--compare-with", help="Run A's report: compare this run with it (see eval compare)."),
    ] = None,
    marge: MargeOpt = 0.05,
    markdown: MarkdownOpt = None,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            help="The agent replayed: filon (default), python:MODULE:ATTR or http://HOST:PORT/PATH "
            "(default: target in filon.toml or pyproject.toml's \\[tool.filon]).",
        ),
    ] = None,
    otlp_port: Annotated[
        int, typer.Option("--otlp-port", help="Loopback port where an HTTP target sends its spans.")
    ] = 4318,
    span_timeout: Annotated[
        float, typer.Option("--span-timeout", help="Seconds to wait for a turn's spans from an HTTP target.")
    ] = 10.0,
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--judge-model",
            help="The model behind `juge` checks (default: another model than the agent's; "
            "scripted-juge on the stand-in).",
        ),
    ] = None,
    embedding_model: Annotated[
        str | None,
        typer.Option(
            "--embedding-model", help="The model behind `proche_de` checks (default gemini-embedding-001)."
        ),
    ] = None,
    simulator_model: Annotated[
        str | None,
        typer.Option(
            "--simulator-model",
            help="The simulated customer of `simulation` cases (default gemini-2.5-flash).",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        typer.Option(
            "--budget",
            help="Most to spend, in goldens/prices.json's currency (USD): estimated before the run; attempts "
            "that would go over are not started (partial report, exit 3).",
        ),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="The console's and JUnit's language: fr (the default) or en (default FILON_LANG). The "
            "report file and the case format stay French.",
        ),
    ] = None,
) -> None:
    """Replay every golden case through the agent, grade it, and decide the gate.

    Exit codes: 0 passed, 1 failed (score under --seuil, or a blocking category failed), 2 usage, 3 inconclusive (infrastructure errors over --max-error-rate, no credentials, or --budget spent before the end), 4 invalid golden set. With --compare-with, a passing gate takes the comparison's exit code (1 when this run is worse).

    Example: filon eval --backend scripted --junit var/eval.xml
    Example: filon eval --backend scripted --html var/run.html
    Example: filon eval --target python:my_agent:answer --goldens my-goldens
    Example: filon eval --target http://127.0.0.1:8000/chat --otlp-port 4318
    Example: filon eval --model gemini-new --compare-with var/eval-a.json
    """
    if ctx.invoked_subcommand is not None:
        return
    said_in = console_language(lang)
    from filon.goldens.evaluate import EvalConfig

    config = EvalConfig(
        goldens=goldens,
        ids=[i.strip() for i in ids.split(",") if i.strip()] if ids else None,
        threshold=threshold if threshold is not None else _default_threshold(),
        blocking=tuple(blocking) if blocking else ("securite",),
        repeat=repeat,
        concurrency=concurrency,
        backend=backend,
        model=model,
        model_url=model_url,
        prompt=prompt,
        report=report or _settings().report_path(),
        junit=junit,
        baseline=baseline,
        max_error_rate=max_error_rate,
        compare_with=compare_with,
        margin=marge,
        markdown=markdown,
        target=target,
        otlp_port=otlp_port,
        span_timeout=span_timeout,
        judge_model=judge_model,
        embedding_model=embedding_model,
        simulator_model=simulator_model,
        budget=budget,
    )
    progress, on_start, on_attempt, live, finished = _progress(repeat, said_in)
    outputs = [
        ("--report", config.report),
        ("--junit", config.junit),
        ("--html", html),
        ("--summary", summary),
    ]
    with _locked(outputs):
        _run(config, progress, on_start, on_attempt, live, finished, (html, summary))


def _progress(repeat: int, lang: str) -> tuple[Progress, Any, Any, bool, dict[str, list[Any]]]:
    """The bar on a terminal; in CI, a line per case as it finishes, not a silent bar."""

    from rich.markup import escape

    from filon.goldens.run.runner import Attempt
    from filon.goldens.verdict.report import case_entry
    from filon.goldens.verdict.report_console import case_line
    from filon.miner.core.messages import Said

    progress = progress_bar("eval", elapsed=True)
    task = progress.add_task("eval", total=None)

    def on_start(total: int, banner: Said) -> None:
        if banner.codes() & STAND_INS:
            err_console.print(f"[bold yellow]⚠ {escape(banner.render(lang))}[/]")
        progress.update(task, total=total)

    live = not err_console.is_terminal
    finished: dict[str, list[Attempt]] = {}
    lock = threading.Lock()

    def on_attempt(attempt: Attempt) -> None:
        progress.advance(task)
        if not live:
            return
        with lock:
            done = finished.setdefault(attempt.case_id, [])
            done.append(attempt)
            if len(done) == repeat:
                codes = {text: s for a in done for text, s in a.codes.items()}
                console.print(case_line(case_entry(done), lang, codes), markup=False, soft_wrap=True)

    return progress, on_start, on_attempt, live, finished


@contextmanager
def _locked(outputs: list[tuple[str, Any]]) -> Iterator[None]:
    """One run per file it writes (the report, the JUnit, the page, the summary), released however the
    run ends: two runs sharing a --junit had left the first saying « JUnit : x.xml » of the other's."""
    from filon.goldens.verdict.files import ReportBusy, report_lock

    with ExitStack() as held:
        for option, path in outputs:
            if path is not None:
                try:
                    held.enter_context(report_lock(Path(path)))
                except ReportBusy as exc:
                    fail(say("cli.run_apart", option=option, why=exc), Exit.USAGE)
        yield


# the banner names a scripted stand-in: the run says nothing of the real model (said as a warning)
STAND_INS = {"banner.scripted", "banner.role_stand_in"}


def _run(
    config: Any,
    progress: Progress,
    on_start: Any,
    on_attempt: Any,
    live: bool,
    finished: dict[str, Any],
    shared: tuple[Path | None, Path | None] = (None, None),
) -> None:
    """The run, its lines and its exit code (`typer.Exit`), with the report held."""
    from filon.goldens.evaluate import evaluate
    from filon.goldens.verdict import lang as language
    from filon.miner.core.messages import said

    lang = language.current()
    try:
        with progress:
            result = evaluate(config, on_start, on_attempt)
    except KeyboardInterrupt:  # outside the replay itself (which stops cleanly and reports): nothing to keep
        err_console.print(say("cli.eval_interrupted"), markup=False)
        raise typer.Exit(130) from None
    for problem in result.problems:
        (err_console if problem.level == "error" else console).print(problem.line(), markup=False)
    if result.report is None:
        fail(result.message, Exit(result.exit_code))
    lines = result.lines(lang)
    if live and finished:  # the cases were printed as they finished: the summary follows
        lines = lines[len(result.report.cases) :]
    for line in lines:
        console.print(line, markup=False, soft_wrap=True)
    report, junit = result.written or (config.report, config.junit)
    if result.report.interrupted:
        kept = said("console.kept_earlier") if str(report) != str(config.report) else ""
        done = len(finished) or len(result.report.cases)
        interrupted = said("console.interrupted", done=done, report=str(report), kept=kept)
        err_console.print(interrupted.render(lang), markup=False)
    also = said("console.junit", junit=str(junit)) if junit else ""
    console.print(said("console.report", report=str(report), junit=also).render(lang), markup=False)
    b = result.report.baseline
    if b is not None:
        for code, names in (
            ("console.new_failures", b.new_failures),
            ("console.new_passes", b.new_passes),
            ("console.new_unstable", b.new_unstable),
        ):
            if names:
                console.print(said(code, ids=", ".join(names)).render(lang), markup=False)
    if result.store_warning:
        err_console.print(result.store_warning, markup=False)
    from filon.commands.eval_share import publish

    for line, failed in publish(result.report, Path(config.report), *shared):
        (err_console if failed else console).print(line, markup=False, soft_wrap=True)
    raise typer.Exit(result.exit_code)


app.command("history")(eval_history.history)
app.command("show")(eval_show.show)


@app.command("compare")
def compare_command(
    a: Annotated[Path, typer.Argument(help="Report of run A (the reference: today's model or prompt).")],
    b: Annotated[Path, typer.Argument(help="Report of run B (the candidate).")],
    marge: MargeOpt = 0.05,
    markdown: MarkdownOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    lang: Annotated[
        str | None, typer.Option("--lang", help="fr (the default) or en: the console's language.")
    ] = None,
) -> None:
    """Is run B worse than run A beyond noise? Two reports of the same set, paired by case.

    McNemar's exact test on the cases that changed, a 95% interval on the score difference, per-case and
    per-category rates, newly failing and newly fixed cases, cost and latency deltas. Exit 1 when a
    blocking case passes on A and fails on B, or B is lower by more than --marge and significantly so;
    0 otherwise; 2 when the reports do not pair; 3 when either run was inconclusive.

    Example: filon eval compare var/eval-gemini-a.json var/eval-gemini-b.json --markdown var/compare.md
    Example: filon eval compare var/eval-a.json var/eval-b.json --lang en
    """
    import json

    from filon.goldens.evaluate import compare_reports
    from filon.goldens.verdict.compare_view import console_lines

    result = compare_reports(a, b, marge, markdown)
    if result.comparison is None:
        fail(result.message, Exit(result.exit_code))
    if as_json:
        console.print_json(json.dumps(result.comparison.as_json(), ensure_ascii=False))
    else:
        for line in console_lines(result.comparison, console_language(lang)):
            console.print(line, markup=False, soft_wrap=True)
    if result.store_warning:
        err_console.print(result.store_warning, markup=False)
    raise typer.Exit(result.exit_code)
