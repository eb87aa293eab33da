"""The report's JSON on disk: written whole or not at all (a half-written report never replaces a good
one), as every file the gate writes (the JSON report, JUnit, the Markdown summary)."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
