"""Importing the seeds' single-file list (`eval/conversations.json`) as one file per case.

All or nothing: every case is validated, and ids are checked against the destination, before any file
is written; each file is written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path

from filon.goldens.set.caseset import goldens_dir, parse_case, write_case


class ImportError_(Exception):
    def __init__(self, message: str, lines: list[str] | None = None, usage: bool = False) -> None:
        super().__init__(message)
        self.lines = lines or []
        self.usage = usage  # the file cannot be read (bad input, exit 2), not a list with bad cases


def import_list(file: Path, to: Path | None = None, overwrite: bool = False) -> list[Path]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ImportError_(f"{file}: {exc.strerror}", usage=True) from exc
    except json.JSONDecodeError as exc:
        raise ImportError_(f"{file}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, list):
        raise ImportError_(f"{file}: expected a JSON list of cases")
    folder = goldens_dir(to)
    problems, seen, tels = [], set(), set()
    for i, item in enumerate(data):
        name = f"{file}[{i}]"
        case, found = parse_case(name, json.dumps(item))
        problems += [p.line() for p in found if p.level == "error"]
        if case is None:
            continue
        if case.id in seen:
            problems.append(f"error: {name}: id: duplicate id {case.id!r} in the file")
        if case.tel and case.tel in tels:
            problems.append(f"error: {name}: tel: duplicate tel {case.tel} in the file")
        seen.add(case.id)
        if case.tel:
            tels.add(case.tel)
        if not overwrite and (folder / f"{case.id}.json").exists():
            problems.append(
                f"error: {name}: id: {folder / (case.id + '.json')} already exists (--overwrite to replace)"
            )
    if problems:
        raise ImportError_(f"{file}: nothing imported, {len(problems)} problem(s)", problems)
    return [write_case(folder, item, overwrite=True) for item in data]
