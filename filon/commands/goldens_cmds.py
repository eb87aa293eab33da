"""`filon goldens lint|import`: keep the golden set valid, and bring in the seeds' single-file list."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from filon.commands.common import CLI_LANG, ConversationArg, Exit, console, err_console, fail, say
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.goldens.set.caseset import CaseSet

app = typer.Typer(
    help="The golden set: lint it, label and trust it against reviewers' verdicts, its coverage of production, "
    "import the seeds' format.",
    no_args_is_help=True,
)


@app.command("lint")
def lint(
    folder: Annotated[
        Path | None, typer.Argument(help="Folder of cases (default FILON_GOLDENS or goldens/cases).")
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Minimum examples per case become errors: 2 'bon' and 1 'mauvais' in a blocking "
            "category, 1 'bon' elsewhere (CI uses it on filon's own set).",
        ),
    ] = False,
    explain: Annotated[
        str | None,
        typer.Option(
            "--explain", metavar="ID", help="Print one case's checks × examples matrix, then its examples."
        ),
    ] = None,
    embeddings: Annotated[
        bool,
        typer.Option(
            "--embeddings", help="Also prove each proche_de threshold against the examples (calls the model)."
        ),
    ] = False,
    backend: Annotated[
        str, typer.Option("--backend", help="gemini or scripted: the embeddings of --embeddings.")
    ] = "gemini",
    model_url: Annotated[
        str | None,
        typer.Option("--model-url", help="A running `filon model serve` (with --backend scripted)."),
    ] = None,
    embedding_model: Annotated[
        str | None, typer.Option("--embedding-model", help="Default gemini-embedding-001.")
    ] = None,
    mutants: Annotated[
        bool,
        typer.Option(
            "--mutants",
            help="Also try each 'bon' answer with one fact turned wrong (a figure moved by one, a statement "
            "denied, a denial dropped): a warning for each one the checks accept.",
        ),
    ] = False,
) -> None:
    """Check every case: schema, tools, fixtures, and each check proven against the case's examples.

    A 'bon' example the checks reject is an error (trop strict), a 'mauvais' one they accept is an
    error (trop lâche). Errors exit 1; warnings are printed and exit 0.

    Example: filon goldens lint --strict goldens/cases
    Example: filon goldens lint --explain adv-03
    Example: filon goldens lint --embeddings --backend scripted
    Example: filon goldens lint --mutants goldens/cases
    """
    from filon.goldens.set.caseset import load_set, missing_set

    absent = missing_set(folder, option=None)
    if absent is not None:
        fail(absent, Exit.USAGE)
    try:
        caseset = load_set(folder, strict=strict)
    except ValueError as exc:  # the configuration (filon.toml, [tool.filon]) does not parse
        fail(exc, Exit.USAGE)
    if explain is not None:
        case = caseset.by_id().get(explain)
        if case is None:
            fail(say("cli.no_case_explain", id=repr(explain), folder=caseset.folder), Exit.USAGE)
        _print_matrix(case)
        raise typer.Exit(0)
    problems = list(caseset.problems)
    if embeddings and not caseset.errors:
        from filon.agent.model import MissingCredentials
        from filon.goldens.models.similarity import EmbeddingError
        from filon.goldens.set.model_lint import prove_thresholds

        try:
            found, banner = prove_thresholds(
                caseset.cases, caseset.folder, backend, model_url, embedding_model
            )
        except MissingCredentials as exc:
            fail(exc, Exit.INCONCLUSIVE)
        except EmbeddingError as exc:
            fail(exc, Exit.INCONCLUSIVE)
        except ValueError as exc:
            fail(exc, Exit.USAGE)
        console.print(banner.render(CLI_LANG), markup=False)
        proven = [p for p in problems if not (p.said and p.said.code == "lint.only_proche_de")]  # proven now
        problems = proven + found
    elif embeddings:
        console.print(say("cli.thresholds_unproven"), markup=False)
    from filon.goldens.verdict.lang import current  # what a check found, as the gate says it (FILON_LANG)

    lang = current()
    for p in problems:
        (err_console if p.level == "error" else console).print(p.line(lang), markup=False)
    errors = sum(p.level == "error" for p in problems)
    counts = {"cases": len(caseset.cases), "errors": errors, "warnings": len(problems) - errors}
    console.print(say("cli.lint_summary", **counts, folder=caseset.folder), markup=False)
    if not errors:
        _print_rules(caseset)
    if mutants:
        _print_mutants(caseset)
    raise typer.Exit(1 if errors else 0)


def _print_rules(caseset: CaseSet) -> None:
    """Each rule of the rulebook proven on the set's examples: tried, good ones broken, bad ones caught;
    a rule that breaks a good example is advisory (named with the examples), the others gate."""
    from filon.goldens.checks.rules import Rules
    from filon.goldens.set.rule_standing import standings

    try:
        config = FlagConfig.load()
        found = standings(caseset.cases, Rules(config, reference=config.tools is None))
    except ValueError as exc:
        fail(exc, Exit.USAGE)
    for name, s in found.items():
        verdict = say("lint.rule_gates") if s.gates else say("lint.rule_advisory", why=s.why())
        figures = {"tried": s.tried, "broken": len(s.good_broken), "caught": s.bad_caught}
        console.print(say("lint.rule_standing", name=name, **figures, verdict=verdict), markup=False)


def _print_mutants(caseset: CaseSet) -> None:
    """After lint's own lines: a warning per mutant the checks accept, then how many they rejected."""
    from filon.goldens.set.mutants import mutant_problems

    accepted, tried = 0, 0
    for case in caseset.cases:
        problems, count = mutant_problems(caseset.files.get(case.id, case.id), case)
        for p in problems:
            console.print(p.line(), markup=False)
        accepted += len(problems)
        tried += count
    console.print(say("cli.mutants", rejected=tried - accepted, tried=tried, accepted=accepted), markup=False)


@app.command("label")
def label_command(
    case_id: Annotated[str, typer.Argument(help="The case to add the example to.")],
    conversation_id: ConversationArg,
    verdict: Annotated[str, typer.Option("--verdict", help="bon or mauvais: the reviewer's judgement.")],
    folder: Annotated[
        Path | None,
        typer.Option("--goldens", help="Folder of cases (default FILON_GOLDENS or goldens/cases)."),
    ] = None,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Who judged it (kept in the note).")] = "cli",
    note: Annotated[str, typer.Option("--note", help="Why, in a few words.")] = "",
) -> None:
    """Keep a stored conversation as a judged example of a case: its answers turn by turn, its calls
    with their arguments and results, redacted. Lint then proves the case's checks on it; this command
    says at once whether they agree with the verdict (exit 0 either way: the example is the proof).

    Example: filon goldens label upda-01 tau-airline-06-1 --verdict mauvais
    """
    from filon.commands.traces_cmds import no_conversation, open_store
    from filon.goldens.drafting.examples import LabelError, add_example
    from filon.goldens.drafting.review import load_conversation
    from filon.goldens.set.caseset import goldens_dir, missing_set

    absent = missing_set(folder)
    if absent is not None:
        fail(absent, Exit.USAGE)
    store = open_store()
    loaded = load_conversation(store, conversation_id)
    if loaded is None:
        no_conversation(store, conversation_id)
        return
    try:
        path, agrees = add_example(goldens_dir(folder), case_id, loaded[0], verdict, reviewer, note)
    except LabelError as exc:
        fail(exc, Exit.USAGE)
    said = say(
        "cli.checks_agree" if agrees else ("cli.checks_reject" if verdict == "bon" else "cli.checks_accept")
    )
    console.print(say("cli.kept_example", verdict=verdict, path=path, said=said), markup=False)


@app.command("import")
def import_cases(
    file: Annotated[Path, typer.Argument(help="The seeds' eval/conversations.json: a JSON list of cases.")],
    to: Annotated[
        Path | None, typer.Option("--to", help="Destination folder (default FILON_GOLDENS or goldens/cases).")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace cases whose id already exists.")
    ] = False,
) -> None:
    """Split a single-file list of cases into one file per case, after validating all of them.

    Example: filon goldens import seeds/conversations.json --to my-cases
    """
    from filon.goldens.set.importer import ImportError_, import_list

    try:
        written = import_list(file, to, overwrite)
    except ImportError_ as exc:
        for line in exc.lines:
            err_console.print(line, markup=False)
        fail(exc, Exit.USAGE if exc.usage else Exit.FAILED)
    for path in written:
        console.print(say("cli.wrote", path=path), markup=False)
    console.print(say("cli.imported", n=len(written)), markup=False)


def _print_matrix(case: Any) -> None:
    """One row per check, one narrow column per example (a case has many checks and a dozen examples:
    this way it reads at 80 columns), then each example with its verdict, what lint says and its answer."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from filon.commands.review_cmds import agreement
    from filon.goldens.set.calibration import calls_line, label, matrix
    from filon.miner.core.untrusted import one_line

    m = matrix(case)
    if not m.rows:
        console.print(say("cli.no_examples", id=case.id), markup=False)
        return
    table = Table(
        title=f"{case.id}: checks × examples (b bon, m mauvais; ✓ passes, ✗ fails)",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        title_justify="left",
    )
    width = max(16, console.width - 4 * len(m.rows) - 2)  # each example's column: 3 wide and a space
    table.add_column("check", max_width=min(40, width), overflow="ellipsis", no_wrap=True)
    for trial in m.rows:
        table.add_column(f"{trial.index}\n{trial.example.verdict[0]}", justify="center", width=3)
    for c, column in enumerate(m.columns):
        table.add_row(escape(one_line(column)), *("✓" if cells[c] else "✗" for cells in m.cells))
    for critere in case.criteria():  # the reviewer's label the judge is measured on, not a check run here
        table.add_row(escape(f"juge {critere} (label)"), *(label(t.example, critere)[0] for t in m.rows))
    console.print(table)
    answers = Table(show_header=True, box=None, pad_edge=False, expand=True)
    answers.add_column("#", justify="right", no_wrap=True)
    answers.add_column("verdict", no_wrap=True)
    answers.add_column("lint", no_wrap=True)
    answers.add_column("outils", overflow="ellipsis", no_wrap=True, ratio=1)
    answers.add_column("réponse", overflow="ellipsis", no_wrap=True, ratio=1)
    for trial in m.rows:
        lint = agreement(trial.agrees, trial.example.verdict)
        shown = lint if trial.agrees else f"[bold red]{lint}[/]"
        if trial.for_the_judge:
            shown = "le juge"  # a mauvais answer only the judge is there to reject
        answers.add_row(
            str(trial.index),
            trial.example.verdict,
            shown,
            escape(one_line(calls_line(trial.example))),
            escape(one_line(" / ".join(trial.example.answers()))),
        )
    console.print(answers)
