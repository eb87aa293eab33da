"""`filon judge calibrate`: measure the judge on the set's labelled answers, and say which criteria may gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import BackendOpt, ModelUrlOpt, console, err_console, fail, progress_bar, say
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:  # imported when the command runs: the CLI starts fast
    from filon.goldens.set.judge_calibration import Result

app = typer.Typer(help="The LLM judge behind `juge` checks.", no_args_is_help=True)


@app.command("calibrate")
def calibrate(
    critere: Annotated[
        list[str] | None,
        typer.Option(
            "--critere", help="A criterion (a rubric's name); repeat it. Default: every one the set uses."
        ),
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Save the figures beside each rubric (NAME.calibration.json): the gate reads them.",
        ),
    ] = False,
    repeats: Annotated[int, typer.Option("--repeats", help="Times each label is judged (stability).")] = 3,
    backend: BackendOpt = "gemini",
    model_url: ModelUrlOpt = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Default: another model than the agent's.")
    ] = None,
    goldens: Annotated[
        Path | None,
        typer.Option("--goldens", help="Folder of cases (default FILON_GOLDENS or goldens/cases)."),
    ] = None,
) -> None:
    """Run the judge on every answer of known verdict (the cases' examples) and report its agreement
    with the reviewers: accuracy, Cohen's kappa, the confusion matrix, the worst disagreements, the
    stability over --repeats. A criterion gates only while its saved figures show kappa >= 0.6 on at
    least 20 labels for the judge model in use (judge_min_kappa, judge_min_labels in filon.toml).

    Exit codes: 0 measured, 2 usage, 3 the judge failed (nothing written), 4 invalid golden set.

    Example: filon judge calibrate --backend scripted --write
    Example: filon judge calibrate --critere ton --judge-model gemini-2.5-pro
    """

    from filon.goldens.set.judge_calibration import calibrate_set
    from filon.goldens.verdict.lang import current
    from filon.miner.core.messages import render

    progress = progress_bar("judge")
    task = progress.add_task("labels", total=0)
    with progress:
        outcome = calibrate_set(
            str(goldens) if goldens else None,
            critere,
            backend,
            model_url,
            judge_model,
            repeats,
            write,
            on_start=lambda n: progress.update(task, total=n),
            on_done=lambda: progress.advance(task),
        )
    if outcome.banner:
        console.print(render(outcome.banner, current()), markup=False)
    flags = FlagConfig.load()
    for result in outcome.results:
        _print_result(result, bool(outcome.written), flags.judge_min_kappa, flags.judge_min_labels)
    for path in outcome.written:
        console.print(say("cli.judge_written", path=path), markup=False)
    if outcome.exit_code:
        fail(outcome.message, outcome.exit_code)  # type: ignore[arg-type]


def _print_result(result: Result, written: bool, min_kappa: float, min_labels: int) -> None:
    """One criterion: its judge errors (three at most), then its figures and whether it would gate."""
    from filon.goldens.checks.rubrics import figures_standing

    f = result.figures
    if result.errors:
        err_console.print(
            say("cli.judge_failed_on", name=result.rubric.name, n=len(result.errors)), markup=False
        )
        for line in result.errors[:3]:
            err_console.print(say("cli.judge_error", line=line), markup=False)
        if len(result.errors) > 3:
            err_console.print(say("cli.judge_more", n=len(result.errors) - 3), markup=False)
    if not f.labels:
        return
    from filon.goldens.verdict.lang import current  # the judge's figures, as the gate says them (FILON_LANG)
    from filon.miner.core.messages import said

    lang = current()
    kappa = said("cli.undefined") if f.kappa is None else f"{f.kappa:.2f}"
    figures = {
        "labels": f.labels,
        "accuracy": f.accuracy,
        "stability": f.stability,
        "repetitions": f.repetitions,
    }
    console.print(
        said("cli.judge_figures", name=result.rubric.name, kappa=kappa, **figures).render(lang), markup=False
    )
    m = f.matrix
    console.print(said("cli.judge_matrix_head").render(lang), markup=False)
    for verdict in ("bon", "mauvais"):
        row = said("cli.judge_matrix_row", verdict=verdict, good=m[verdict]["bon"], bad=m[verdict]["mauvais"])
        console.print(row.render(lang), markup=False)
    for d in f.disagreements:
        which = {"case": d.case, "example": d.example, "expected": d.expected, "score": d.score}
        console.print(said("cli.judge_disagreement", **which, reason=d.reason).render(lang), markup=False)
    now = figures_standing(f, min_kappa, min_labels)
    saved = "" if written else said("cli.judge_not_saved")
    console.print(said("cli.judge_standing", reason=now.reason, saved=saved).render(lang), markup=False)
