"""`filon goldens trust`: how far the whole gate agrees with the reviewers, on the set's own examples or
on a table of judged answers the checks were never proven on (the figure that matters)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from filon.commands.common import BackendOpt, Exit, ModelUrlOpt, console, fail, say
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.goldens.set.trust import Trust


def trust_command(
    folder: Annotated[
        Path | None, typer.Argument(help="Folder of cases (default FILON_GOLDENS or goldens/cases).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
    table: Annotated[
        Path | None,
        typer.Option(
            "--table",
            help="A JSON list of judged answers to the set's cases ({case, verdict, reponse, outils, "
            "escalade}): graded instead of the set's own examples, as answers the checks were never proven on.",
        ),
    ] = None,
    on: Annotated[
        str | None,
        typer.Option(
            "--on",
            metavar="YYYY-MM-DD",
            help="The day the table's answers were written: their calls are replayed on the shop as it "
            "stood that day (its dates are relative to today), so « demain » or « le 4 décembre » are read "
            "as the reviewer read them.",
        ),
    ] = None,
    judge: Annotated[
        bool,
        typer.Option(
            "--judge",
            help="Also ask the calibrated judge's gating criteria (calls the model), as filon eval does: "
            "the whole gate's figure, reported apart (avec_juge).",
        ),
    ] = False,
    disagreements: Annotated[
        bool,
        typer.Option(
            "--disagreements",
            help="Also list each answer the gate judged otherwise than its reviewer: its row, case, verdict "
            "and the checks that failed it (for a development table: a held-out one is read by nobody).",
        ),
    ] = False,
    backend: BackendOpt = "gemini",
    model_url: ModelUrlOpt = None,
    judge_model: Annotated[
        str | None,
        typer.Option("--judge-model", help="With --judge: default another model than the agent's."),
    ] = None,
) -> None:
    """How far the whole gate (each case's checks, then the rulebook's rules that gate) agrees with the
    reviewers on every example: by category, by the check that rejected each wrong answer, and real
    answers a reviewer judged (revue, observé) apart from those written by hand. No model is called.

    Example: filon goldens trust
    Example: filon goldens trust --json --table bench/heldaside_set_c.json
    Example: filon goldens trust --table table.json --on 2026-12-03
    Example: filon goldens trust --table table.json --disagreements
    """
    from filon.goldens.checks.rules import RuleGate, Rules
    from filon.goldens.set.caseset import load_set
    from filon.goldens.set.rule_standing import standings
    from filon.goldens.set.trust import set_examples, trust

    try:
        caseset = load_set(folder)
        config = FlagConfig.load()
    except ValueError as exc:
        fail(exc, Exit.USAGE)
    if caseset.errors:
        fail(say("cli.set_invalid", folder=caseset.folder), Exit.INVALID_SET)
    rules = Rules(config, reference=config.tools is None)
    examples = set_examples(caseset.cases)
    graded = rules
    if on is not None:
        if table is None:
            fail(say("cli.on_needs_table"), Exit.USAGE)
        try:
            graded = Rules(config, reference=config.tools is None, today=date.fromisoformat(on))
        except ValueError:
            fail(say("cli.on_a_day", value=repr(on)), Exit.USAGE)
    if table is not None:
        examples = _table(caseset.cases, table)
    # the rules' standing is proven on the set's own examples, today; a dated table is graded on its day
    gate = RuleGate(graded, standings(caseset.cases, rules))
    if judge:
        found = _trust_with_judge(examples, gate, caseset.folder, backend, model_url, judge_model)
    else:
        found = trust(examples, gate)
    doc = found.as_json()
    if disagreements:
        doc["desaccords"] = found.disagreements
    if as_json:
        console.print_json(json.dumps(doc, ensure_ascii=False))
        return

    _say(doc, found.for_the_judge)


def _table(cases: list[Any], table: Path) -> list[Any]:
    """A reviewers' table (`--table`) as examples; bad input is one line naming the file."""
    from filon.goldens.set.trust import table_examples

    try:
        rows = json.loads(table.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            fail(say("cli.table_not_a_list", table=escape(str(table))), Exit.USAGE)
        return table_examples(cases, rows, str(table))
    except OSError as exc:
        fail(say("cli.option_problem", option=f"--table {table}", problem=exc.strerror or exc), Exit.USAGE)
    except ValueError as exc:
        fail(exc, Exit.USAGE)


# the JSON's keys are the report's French; the console says them in English (a category keeps its name)
_NAMES = {
    "ensemble": "cli.trust_all",
    "réelle": "cli.trust_real",
    "écrite": "cli.trust_written",
    "après les contrôles": "cli.trust_after",
    "avant un changement": "cli.trust_before",
    "with the judge": "cli.trust_with_judge",
}


def _line(name: str, t: dict[str, Any]) -> str:
    agreement = "-" if t["accord"] is None else f"{t['accord']:.3f}"
    named = say(_NAMES[name]) if name in _NAMES else name
    counts = {"wolf": t["crie_au_loup"], "good": t["bons"], "lies": t["ment"], "bad": t["mauvais"]}
    return say("cli.trust_line", name=named, agreement=agreement, **counts)


def _say(doc: dict[str, Any], for_the_judge: int) -> None:
    """The agreement, overall and by origin, arrival and category, and what rejected or failed what."""
    console.print(_line("ensemble", doc["ensemble"]), markup=False)
    for title in ("par_origine", "par_arrivee", "par_categorie"):
        for name, t in doc[title].items():
            console.print(_line(name, t), markup=False)
    caught = ", ".join(f"{k} {v}" for k, v in doc["rejets_par_controle"].items())
    console.print(say("cli.trust_caught", caught=caught), markup=False)
    wolves = ", ".join(f"{k} {v}" for k, v in doc["bons_echoues_par_controle"].items())
    if wolves:
        console.print(say("cli.trust_wolves", wolves=wolves), markup=False)
    if "avec_juge" in doc:
        console.print(_line("with the judge", doc["avec_juge"]), markup=False)
    if for_the_judge:
        console.print(say("cli.trust_for_judge", n=for_the_judge), markup=False)
    for d in doc.get("desaccords", []):
        said = ", ".join(d["echoue_par"]) or say("cli.passed_every_check")
        console.print(
            say("cli.trust_row", row=d["ligne"], case=d["cas"], verdict=d["verdict"], said=said), markup=False
        )


def _trust_with_judge(
    examples: Any, gate: Any, folder: Path, backend: str, model_url: str | None, judge_model: str | None
) -> Trust:
    """`trust` with the calibrated judge asked too; a model that cannot be reached is exit 3."""
    from filon.agent.model import MissingCredentials, open_backend
    from filon.goldens.models.judge import Judge, JudgeError, default_judge_model
    from filon.goldens.set.trust import trust
    from filon.goldens.set.trust_judge import judge_gaps

    config = FlagConfig.load()
    try:
        with open_backend(backend, None, model_url) as opened:
            model = judge_model or default_judge_model(opened.model, opened.scripted)
            asked = Judge(opened.client, model, opened.scripted)
            gaps = judge_gaps(asked, folder, config.judge_min_kappa, config.judge_min_labels)
            return trust(examples, gate, gaps)
    except MissingCredentials as exc:
        fail(exc, Exit.INCONCLUSIVE)
    except JudgeError as exc:
        fail(say("cli.judge_failed", why=exc), Exit.INCONCLUSIVE)
