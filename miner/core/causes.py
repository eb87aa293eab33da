"""Every cause a flag can have, registered by the module that raises it.

A cause says what happened (`leak`, `slow_turn`); it fixes the flag's kind and severity, says why that
severity, and, for the rules the gate also holds answers to, the rulebook's French name, its label and
whether it blocks. The detector that raises a cause declares it beside its code
(`LEAK = cause("leak", …)` in `miner/rules/security_rule.py`), so that a new rule is one module: flags,
the rulebook, lint, the gate and the docs all read this one table. `reported` is the core's own: a person
raises it (`filon incident add`), no detector does.
"""

from __future__ import annotations

from dataclasses import dataclass

from filon.miner.core.severity import FlagKind, Severity


@dataclass(frozen=True)
class CauseDef:
    name: str
    kind: FlagKind
    severity: Severity
    why: str  # why this severity: the docs' table says it
    rule: str = ""  # the rulebook's name (French, `[rules.NAME]`) when the gate holds answers to it
    label: str = ""  # French: what breaks the rule, as the report and the console say it
    label_en: str = ""  # the same in English, for the console with --lang en
    blocking: bool = False  # a breach fails the gate whatever the score
    production: bool = True  # whether ingest flags it too (the gate always holds attempts to a rule)


CAUSES: dict[str, CauseDef] = {}
FIELDS: dict[str, tuple[str, str]] = {}  # kind and severity as plain strings, for `Flag.of` and the drivers


def cause(
    name: str,
    kind: FlagKind,
    severity: Severity,
    why: str,
    *,
    rule: str = "",
    label: str = "",
    label_en: str = "",
    blocking: bool = False,
    production: bool = True,
) -> str:
    """Register a cause where its detector is defined; its name, for `Flag.of`."""
    if rule and not (label and label_en):
        raise RuntimeError(f"cause {name!r}: a rule is said in French and English (label=, label_en=)")
    entry = CauseDef(name, kind, severity, why, rule, label, label_en, blocking, production)
    if CAUSES.setdefault(name, entry) != entry:
        raise RuntimeError(f"cause {name!r} is registered twice, differently")
    FIELDS[name] = (str(kind.value), str(severity.value))
    return name


def cause_of(name: str) -> CauseDef:
    """The registered cause; `KeyError` naming it (a flag raised by a module that was never loaded)."""
    try:
        return CAUSES[name]
    except KeyError:
        raise KeyError(f"unknown flag cause {name!r}: no loaded rule module registers it") from None


REPORTED = cause(
    "reported",
    FlagKind.INCIDENT,
    Severity.CRITICAL,
    "a person said so; above every severity in the queue",
)
