"""Where filon keeps its files, whichever folder a command is run from.

A store and a redaction key that followed the current folder gave the same customer other pseudonyms in
each folder, and a `var/filon.db` made silently wherever a command ran. So the project is found as
`filon.toml` is found (the nearest folder, up to the repository's root, with a `filon.toml` or a
`pyproject.toml` holding `[tool.filon]`) and filon's files live in its `var/`; outside any project, in a
per-user data folder (platformdirs). `FILON_HOME`, `FILON_DB` and `FILON_GOLDENS` override each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import platformdirs


def project_folder(start: Path | None = None) -> Path | None:
    """The folder of the nearest `filon.toml` or `pyproject.toml` with `[tool.filon]`, from `start` (the
    current folder) up to the repository's root (a folder with `.git`); None outside any project."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "filon.toml").is_file():
            return folder
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "[tool.filon]" in pyproject.read_text(encoding="utf-8", errors="replace"):
            return folder
        if (folder / ".git").exists():
            return None
    return None


def default_home(start: Path | None = None) -> Path:
    """The project's `var/`, or the per-user data folder outside any project: always absolute."""
    project = project_folder(start)
    return project / "var" if project is not None else platformdirs.user_data_path("filon")


def default_goldens(start: Path | None = None) -> Path:
    """The project's `goldens/cases`, or `goldens/cases` under the current folder outside any project."""
    project = project_folder(start)
    return (project or Path.cwd()) / "goldens" / "cases"


def shown(url: str) -> str:
    """A store's URL as messages name it: its password hidden."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def where(url: str) -> str:
    """The store as a person reads it: a SQLite file's absolute path, another URL without its password."""
    return url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else shown(url)


# Told of every store this process opens (its URL, and whether it was just made): the CLI names it on stderr.
store_opened: list[Callable[[str, bool], None]] = []
