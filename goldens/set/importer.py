"""Importing the seeds' single-file list (`eval/conversations.json`) as one file per case.

All or nothing: every case is validated, and ids are checked against the destination, before any file
is written; each file is written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path

from filon.goldens.set.caseset import goldens_dir, parse_case, write_case
from filon.miner.core.messages import Refusal, Said, said


class ImportError_(Refusal):
    """A list that cannot be imported: the file that cannot be read, or the problems of its cases."""

    def __init__(self, message: Said, lines: list[str] | None = None, usage: bool = False) -> None:
        super().__init__(message)
        self.lines = lines or []
        self.usage = usage  # the file cannot be read (bad input, exit 2), not a list with bad cases


def import_list(file: Path, to: Path | None = None, overwrite: bool = False) -> list[Path]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ImportError_(said("err.at", where=str(file), why=exc.strerror or str(exc)), usage=True) from exc
    except json.JSONDecodeError as exc:
        raise ImportError_(
            said(
                "err.at",
                where=str(file),
                why=said("err.decode.json_at", line=exc.lineno, column=exc.colno, why=exc.msg),
            )
        ) from exc
    if not isinstance(data, list):
        raise ImportError_(said("err.import.not_a_list", file=str(file)))
    folder = goldens_dir(to)
    problems, seen, tels = [], set(), set()
    for i, item in enumerate(data):
        name = f"{file}[{i}]"
        case, found = parse_case(name, json.dumps(item))
        problems += [p.line() for p in found if p.level == "error"]
        if case is None:
            continue
        if case.id in seen:
            problems.append(said("err.import.duplicate_id", where=name, id=repr(case.id)).render("en"))
        if case.tel and case.tel in tels:
            problems.append(said("err.import.duplicate_tel", where=name, tel=case.tel).render("en"))
        seen.add(case.id)
        if case.tel:
            tels.add(case.tel)
        if not overwrite and (folder / f"{case.id}.json").exists():
            problems.append(
                said("err.import.exists", where=name, path=str(folder / f"{case.id}.json")).render("en")
            )
    if problems:
        raise ImportError_(said("err.import.nothing", file=str(file), count=len(problems)), problems)
    return [write_case(folder, item, overwrite=True) for item in data]
