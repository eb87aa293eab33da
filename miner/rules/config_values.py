"""filon.toml read and its values checked before any rule sees them: a file that does not parse, that
is not UTF-8, a key filon does not know or a value of the wrong type is one `ConfigError` naming the file
and the key, which every command says in one line with exit 2 (bad input), never a traceback, and never
a string read as a list of characters (`tools = "search_help"` had made lint list « s, e, a, r… »).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """filon.toml (or `[tool.filon]`) cannot be used: the message names the file and the setting."""


# lists of strings, each with what its message says it holds
_STRINGS = 'a list of strings, such as ["a", "b"]'
_TOOLS = "a list of tool names (shell patterns allowed)"
STRING_LISTS: dict[str, str] = {
    **dict.fromkeys(
        ("tools", "escalation_tools", "injection_patterns", "promise_patterns", "conversation_keys",
         "extra_injection_patterns", "extra_promise_patterns"),
        _STRINGS,
    ),
    **dict.fromkeys(("write_tools", "identity_tools", "disclosing_tools"), _TOOLS),
    "test_identities": "a list of emails or phone numbers (globs allowed)",
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
        raise ConfigError(f"{path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


def checked(values: dict[str, Any], where: str, known: set[str]) -> None:
    """Unknown keys, and the lists and numbers of the wrong type or out of range, named."""
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    for name in FLAGS:
        if name in values and not isinstance(values[name], bool):
            raise ConfigError(f"{where}: {name}: true or false")
    for name, holds in STRING_LISTS.items():
        found = values.get(name, [])
        if not isinstance(found, list) or not all(isinstance(x, str) and x.strip() for x in found):
            raise ConfigError(f"{where}: {name}: {holds}")
    for name, (low, high, whole) in NUMBERS.items():
        if name not in values:
            continue
        value = values[name]
        kind = "a whole number" if whole else "a number"
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (whole and not isinstance(value, int))
        ):
            raise ConfigError(f"{where}: {name}: {kind}, not {value!r}")
        if not low <= value <= high:
            limits = f"at least {low:g}" if high == float("inf") else f"between {low:g} and {high:g}"
            raise ConfigError(f"{where}: {name}: {kind} {limits}, not {value!r}")
    if "target" in values and not isinstance(values["target"], str):
        raise ConfigError(f"{where}: target: a string (python:module:function or an http URL)")
