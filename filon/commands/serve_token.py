"""The bearer token `filon serve` requires, read so that one that cannot work is refused at start rather
than answering every request 401: an HTTP header carries printable ASCII, so a token with a byte-order
mark (stripped, as editors add it), a second line, a space or a non-ASCII character is refused, and so is
one too short to guess at. A token file is opened without blocking (a pipe would wait forever), must be
a small regular file, and is warned about when other users may read it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from filon.commands.common import say

MIN_TOKEN = 16  # characters: `openssl rand -hex 16` gives 32
MAX_TOKEN_FILE = 4096


def token_problem(token: str, where: str) -> str | None:
    """Why `token` cannot guard the receiver, in one line naming where it came from; None when it can."""
    if not token.strip():
        return say("cli.token_spaces", where=where)
    if not token.isascii() or not token.isprintable() or any(ch.isspace() for ch in token):
        return say("cli.token_word", where=where)
    if len(token) < MIN_TOKEN:
        return say("cli.token_short", where=where, n=len(token), least=MIN_TOKEN)
    return None


def read_token_file(path: Path) -> tuple[str, list[str]]:
    """The token a file holds, and the warnings to print; `ValueError` with the line to print."""
    where = f"--token-file {path}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ValueError(say("cli.option_problem", option=where, problem=exc.strerror or exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(say("cli.token_file_not_regular", where=where))
        if st.st_size > MAX_TOKEN_FILE:
            raise ValueError(say("cli.token_file_big", where=where, size=st.st_size))
        data = os.read(fd, MAX_TOKEN_FILE + 1)
    finally:
        os.close(fd)
    warnings = []
    if st.st_mode & 0o077:
        mode = f"{st.st_mode & 0o777:o}"
        warnings.append(say("cli.token_readable", where=where, mode=mode, path=path))
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise ValueError(say("cli.token_file_utf8", where=where)) from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(say("cli.token_file_empty", where=where))
    if len(lines) > 1:
        raise ValueError(say("cli.token_file_lines", where=where, n=len(lines)))
    token = lines[0].strip()
    problem = token_problem(token, where)
    if problem is not None:
        raise ValueError(problem)
    return token, warnings
