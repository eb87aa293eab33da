"""Reading a case file of the set without trusting the folder: a case lands in git and comes from anyone's
clone, so a broken link, a folder or a pipe named `x.json`, a link out of the set, a binary or a huge file
is one problem naming the file, never a traceback, a hang or a gigabyte of memory.

The file is opened without blocking (a pipe named `x.json` would wait for a writer forever) and checked
on the open descriptor (what was checked is what is read), and read up to the cap and no further.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from filon.miner.core.messages import Refusal, Said, said

MAX_CASE_BYTES = 1_000_000  # a case is a few kilobytes; the largest of the set is under 40


def case_text(file: Path, folder: Path) -> str | Said:
    """The text of a case file, or why it cannot be read (one line, with what to do)."""
    try:
        target = file.resolve(strict=True)
    except (OSError, RuntimeError):
        return said("lint.broken_link")
    if file.is_symlink() and not target.is_relative_to(folder.resolve()):
        return said("lint.link_outside", target=target)
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return said("lint.unreadable", why=exc.strerror or exc)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return said("lint.not_regular")
        if st.st_size > MAX_CASE_BYTES:
            return said("lint.too_big", size=st.st_size, most=MAX_CASE_BYTES)
        chunks: list[bytes] = []
        left = MAX_CASE_BYTES + 1
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return said("lint.unreadable", why=exc.strerror or exc)
    finally:
        os.close(fd)
    if len(data) > MAX_CASE_BYTES:
        return said("lint.grew_too_big", most=MAX_CASE_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return said("lint.not_utf8", byte=exc.start)


def case_json(path: Path, folder: Path | None = None) -> Any:
    """A case file's JSON; `ValueError` naming the file and why it cannot be read (`case_text`)."""
    import json

    text = case_text(path, folder or path.parent)
    if isinstance(text, Said):
        raise Refusal(said("err.at", where=str(path), why=text))
    return json.loads(text)
