"""Every module of this tree compiled before an instruction count.

A count is the difference of two runs (with and without the work). The first process to import a module
edited since its last import compiles it, and callgrind counts the compiling: a count made just after an
edit charged it to whichever run came first (up to a few per cent of a step, seen on the minimal spans'
acknowledgement). Compiled beforehand, neither run compiles.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `filon/` holds the others as symbolic links, which compileall does not follow: each is compiled where it is
FOLDERS = ("filon", "agent", "miner", "tracing", "goldens", "tui", "bench")


def compiled() -> None:
    for folder in FOLDERS:
        compileall.compile_dir(ROOT / folder, quiet=1)
