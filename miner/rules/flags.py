"""Running the detectors: every one at ingest (`flag_conversation`), the rulebook's on each attempt of the
gate (`rule_flags`), both as `[rules.NAME]` configures them.

The detectors are registered in their own modules (`miner.rules.registry`), each with the causes it may
raise (`miner.core.causes`: a cause fixes a flag's kind and severity). `incident` is never computed: a
human raises it (`filon incident add`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from filon.miner.core.causes import cause_of
from filon.miner.core.model import Conversation, Flag
from filon.miner.reading.text import forget_folded
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.grounding_rule import grounding, not_evaluated, policy_texts, unrecorded
from filon.miner.rules.registry import detectors

__all__ = [
    "KINDS",
    "flag_conversation",
    "grounding",
    "not_evaluated",
    "policy_texts",
    "rule_flags",
    "unrecorded",
]


def _kinds() -> tuple[str, ...]:
    kinds = (cause_of(c).kind.value for d in detectors() for c in d.causes)
    return ("incident", *dict.fromkeys(kinds))


KINDS = _kinds()  # what `--flag` filters on: incident, then each detector's kinds in its order


def flag_conversation(conv: Conversation, cfg: FlagConfig | None = None) -> list[Flag]:
    cfg = cfg or FlagConfig()
    forget_folded()  # each rule folds the same texts: once per conversation, no memory of the one before
    return _configured([f for d in detectors() for f in d.find(conv, cfg)], cfg, gate=False)


def rule_flags(conv: Conversation, cfg: FlagConfig, allowed: Sequence[str] = ()) -> list[Flag]:
    """The flags of the rulebook's enabled rules, raised by the detectors production is flagged by: what
    the gate grades every attempt by (`goldens.checks.rules`); `allowed`: the facts a case admits."""
    forget_folded()
    raised = [f for d in detectors() if d.grade is not None for f in d.grade(conv, cfg, allowed)]
    return _configured(raised, cfg, gate=True)


def _configured(flags: list[Flag], cfg: FlagConfig, gate: bool) -> list[Flag]:
    """The flags as the configuration has them: a rulebook rule's none if it is switched off (or, at ingest,
    not flagged in production), at its configured severity otherwise; the gate keeps only the rulebook's."""
    out = []
    for f in flags:
        rule = cfg.rules.of_cause(f.cause)
        if rule is None:
            if not gate:
                out.append(f)
        elif rule.enabled and (gate or rule.production):
            out.append(f if f.severity == rule.severity else replace(f, severity=rule.severity.value))
    return out
