"""What every instruction count of `bench/` needs: the tree compiled first, and callgrind's total read.

A count is the difference of two runs (with and without the work). The first process to import a module
edited since its last import compiles it, and callgrind counts the compiling, charged to whichever run
came first (most likely what made one raw step count 282 M instead of 52 M, just after an edit).
Compiled beforehand, neither run compiles. `instruction_ratios.py`, `_detector_instructions.py` and
`exporter_overhead.py` read their totals here.
"""

from __future__ import annotations

import compileall
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `filon/` holds the others as symbolic links, which compileall does not follow: each is compiled where it is
FOLDERS = ("filon", "agent", "miner", "tracing", "goldens", "tui", "bench")
_TOTAL = re.compile(r"^(?:summary|totals): (\d+)", re.MULTILINE)


def compiled() -> None:
    for folder in FOLDERS:
        compileall.compile_dir(ROOT / folder, quiet=1)


def total(out: Path) -> int:
    """The instructions callgrind counted in the run that wrote `out`."""
    found = _TOTAL.search(out.read_text())
    if found is None:
        raise SystemExit(f"{out}: no instruction total in callgrind's output")
    return int(found.group(1))
