"""`filon goldens lint|import`: keep the golden set valid, and bring in the seeds' single-file list."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from filon.commands.common import Exit, console, err_console, fail

app = typer.Typer(help="The golden set: lint it, import the seeds' format.", no_args_is_help=True)


@app.command("lint")
def lint(
    folder: Annotated[
        Path | None, typer.Argument(help="Folder of cases (default FILON_GOLDENS or goldens/cases).")
    ] = None,
) -> None:
    """Check every case: errors (exit 1) and warnings, one line each with file and field.

    Example: filon goldens lint goldens/cases
    """
    from goldens.caseset import load_set

    caseset = load_set(folder)
    for p in caseset.problems:
        (err_console if p.level == "error" else console).print(p.line(), markup=False)
    console.print(
        f"{len(caseset.cases)} cases, {len(caseset.errors)} errors, {len(caseset.warnings)} warnings in {caseset.folder}",
        markup=False,
    )
    raise typer.Exit(1 if caseset.errors else 0)


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

    Example: filon goldens import eval/conversations.json --to goldens/cases
    """
    from goldens.importer import ImportError_, import_list

    try:
        written = import_list(file, to, overwrite)
    except ImportError_ as exc:
        for line in exc.lines:
            err_console.print(line, markup=False)
        fail(str(exc), Exit.FAILED)
    for path in written:
        console.print(f"wrote {path}", markup=False)
    console.print(f"{len(written)} cases imported", markup=False)
