"""filon.toml read and its values checked before any rule sees them: a file that does not parse, that
is not UTF-8, a key filon does not know or a value of the wrong type is one `ConfigError` naming the file
and the key, which every command says in one line with exit 2 (bad input), never a traceback, and never
a string read as a list of characters (`tools = "search_help"` had made lint list « s, e, a, r… »).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from filon.miner.core.messages import Refusal, said


class ConfigError(Refusal):
    """filon.toml (or `[tool.filon]`) cannot be used: the message names the file and the setting."""


# lists of strings, each with the code of what its message says it holds
_STRINGS = "err.config.strings"
_TOOLS = "err.config.tools"
STRING_LISTS: dict[str, str] = {
    **dict.fromkeys(
        ("tools", "escalation_tools", "injection_patterns", "promise_patterns", "conversation_keys",
         "extra_injection_patterns", "extra_promise_patterns"),
        _STRINGS,
    ),
    **dict.fromkeys(("write_tools", "identity_tools", "disclosing_tools"), _TOOLS),
    "test_identities": "err.config.identities",
}  # fmt: skip
FLAGS = ("identity_required", "confirm_writes")  # true or false
# number settings: (the smallest value that makes sense, the largest, whether it must be whole)
NUMBERS: dict[str, tuple[float, float, bool]] = {
    "latency_ms": (1, float("inf"), False),
    "loop_threshold": (2, float("inf"), True),
    "judge_min_kappa": (-1, 1, False),
    "judge_min_labels": (1, float("inf"), True),
}


def read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(said("err.at", where=str(path), why=str(exc))) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(said("err.config.not_utf8", path=str(path), byte=exc.start)) from exc
    except OSError as exc:
        raise ConfigError(
            said("err.config.unreadable", path=str(path), why=exc.strerror or str(exc))
        ) from exc


def checked(values: dict[str, Any], where: str, known: set[str]) -> None:
    """Unknown keys, and the lists and numbers of the wrong type or out of range, named."""
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(
            said("err.config.unknown", where=where, names=", ".join(unknown), known=", ".join(sorted(known)))
        )
    for name in FLAGS:
        if name in values and not isinstance(values[name], bool):
            raise ConfigError(said("err.true_or_false", where=f"{where}: {name}"))
    for name, holds in STRING_LISTS.items():
        found = values.get(name, [])
        if not isinstance(found, list) or not all(isinstance(x, str) and x.strip() for x in found):
            raise ConfigError(said("err.at", where=f"{where}: {name}", why=said(holds)))
    for name, (low, high, whole) in NUMBERS.items():
        if name not in values:
            continue
        value = values[name]
        kind = said("err.config.a_whole_number" if whole else "err.config.a_number")
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (whole and not isinstance(value, int))
        ):
            raise ConfigError(
                said("err.config.wrong_type", where=f"{where}: {name}", kind=kind, value=repr(value))
            )
        if not low <= value <= high:
            limits = (
                said("err.config.at_least", low=f"{low:g}")
                if high == float("inf")
                else said("err.config.between", low=f"{low:g}", high=f"{high:g}")
            )
            raise ConfigError(
                said(
                    "err.config.out_of_range",
                    where=f"{where}: {name}",
                    kind=kind,
                    limits=limits,
                    value=repr(value),
                )
            )
    if "target" in values and not isinstance(values["target"], str):
        raise ConfigError(said("err.config.target", where=where))
