"""`filon judge calibrate`: measure the judge on the set's labelled answers, and say which criteria may gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import BackendOpt, ModelUrlOpt, console, err_console, fail, progress_bar
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
        console.print(outcome.banner, markup=False)
    flags = FlagConfig.load()
    for result in outcome.results:
        _print_result(result, bool(outcome.written), flags.judge_min_kappa, flags.judge_min_labels)
    for path in outcome.written:
        console.print(f"written {path}", markup=False)
    if outcome.exit_code:
        fail(outcome.message, outcome.exit_code)  # type: ignore[arg-type]


def _print_result(result: Result, written: bool, min_kappa: float, min_labels: int) -> None:
    """One criterion: its judge errors (three at most), then its figures and whether it would gate."""
    from filon.goldens.checks.rubrics import figures_standing

    f = result.figures
    if result.errors:
        err_console.print(
            f"{result.rubric.name}: the judge failed on {len(result.errors)} label(s):", markup=False
        )
        for line in result.errors[:3]:
            err_console.print(f"  error: {line}", markup=False)
        if len(result.errors) > 3:
            err_console.print(f"  … and {len(result.errors) - 3} more", markup=False)
    if not f.labels:
        return
    kappa = "indéfini" if f.kappa is None else f"{f.kappa:.2f}"
    console.print(
        f"{result.rubric.name}: {f.labels} labels, exactitude {f.accuracy:.0%}, kappa {kappa}, "
        f"stabilité {f.stability:.0%} sur {f.repetitions} répétitions",
        markup=False,
    )
    m = f.matrix
    console.print("  relecteur \\ juge    bon  mauvais", markup=False)
    for verdict in ("bon", "mauvais"):
        console.print(f"  {verdict:<18}{m[verdict]['bon']:>5}{m[verdict]['mauvais']:>9}", markup=False)
    for d in f.disagreements:
        console.print(
            f"  désaccord {d.case}[{d.example}] attendu {d.expected}, note {d.score} : {d.reason}",
            markup=False,
        )
    now = figures_standing(f, min_kappa, min_labels)
    saved = "" if written else " (not saved: --write keeps these figures, and the gate reads them)"
    console.print(f"  → {now.reason}{saved}", markup=False)
