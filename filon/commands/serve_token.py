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
        return f"{where}: a token of spaces only is no token (set one, or unset it)"
    if not token.isascii() or not token.isprintable() or any(ch.isspace() for ch in token):
        return f"{where}: a token is one word of printable ASCII (an HTTP header carries it)"
    if len(token) < MIN_TOKEN:
        return f"{where}: {len(token)} characters, at least {MIN_TOKEN} (try: openssl rand -hex 16)"
    return None


def read_token_file(path: Path) -> tuple[str, list[str]]:
    """The token a file holds, and the warnings to print; `ValueError` with the line to print."""
    where = f"--token-file {path}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ValueError(f"{where}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{where}: not a regular file (a pipe, a folder or a device)")
        if st.st_size > MAX_TOKEN_FILE:
            raise ValueError(f"{where}: {st.st_size} bytes, a token file holds one line")
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
        raise ValueError(f"{where}: not UTF-8 text") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{where}: the file is empty")
    if len(lines) > 1:
        raise ValueError(f"{where}: {len(lines)} lines, a token file holds one")
    token = lines[0].strip()
    problem = token_problem(token, where)
    if problem is not None:
        raise ValueError(problem)
    return token, warnings
