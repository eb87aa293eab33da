"""filon's exit codes, one set for every command and the library calls behind them (`evaluate`, the gate,
`compare`): CI scripts branch on them, so they never change meaning.

0 passed · 1 failed (a quality verdict) · 2 usage (bad input) · 3 inconclusive (infrastructure, no
credentials) · 4 the golden set itself is invalid · 130 interrupted (ctrl-C, as shells report it).
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILED = 1
    USAGE = 2
    INCONCLUSIVE = 3
    INVALID_SET = 4
    INTERRUPTED = 130
