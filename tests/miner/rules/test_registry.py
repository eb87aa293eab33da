"""The one registry of what went wrong: every cause declared beside the detector that raises it, read by
flags, the rulebook and the docs alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from filon.miner.core.causes import CAUSES, REPORTED, cause_of
from filon.miner.core.model import Flag
from filon.miner.core.severity import FlagKind
from filon.miner.rules.flags import KINDS
from filon.miner.rules.registry import detectors
from filon.miner.rules.rulebook import defaults

REPO = Path(__file__).resolve().parents[3]


# the detectors and rulebook rules of today, in the order ingest runs them (a conversation's flags and the
# rulebook follow it); a new one takes its place among them without changing this file
KNOWN = ["security", "identity", "escalation", "error", "rate_limit", "tool_error", "loop", "promise"]
KNOWN += ["grounding", "write", "latency", "feedback"]
RULES = [
    "fuite",
    "injection_suivie",
    "identite_non_verifiee",
    "geste_promis",
    "action_affirmee",
    "fait_non_fonde",
]


def test_every_cause_but_a_persons_is_raised_by_exactly_one_detector() -> None:
    raised = [c for d in detectors() for c in d.causes]
    assert sorted(raised) == sorted(set(CAUSES) - {REPORTED})
    names = [d.name for d in detectors()]
    assert [n for n in names if n in KNOWN] == KNOWN


def test_the_rulebook_is_the_causes_that_name_a_rule_in_the_detectors_order() -> None:
    rules = defaults()
    assert [r for r in rules if r in RULES] == RULES
    assert set(rules) == {c.rule for c in CAUSES.values() if c.rule}
    for rule in rules.values():
        declared = cause_of(rule.cause)
        assert (declared.rule, declared.label, declared.severity) == (
            rule.name,
            rule.description,
            rule.severity,
        )
    graded = {c for d in detectors() if d.grade is not None for c in d.causes}
    assert {r.cause for r in rules.values()} <= graded  # the gate runs every detector of a rule


def test_the_flag_filter_knows_every_kind_and_no_other() -> None:
    assert set(KINDS) == {k.value for k in FlagKind}


def test_a_cause_no_module_registers_is_named_when_raised() -> None:
    with pytest.raises(KeyError, match="no_such_cause"):
        Flag.of("no_such_cause", 0, "why")


def _table(page: str) -> dict[str, tuple[str, ...]]:
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", text, flags=re.M)
    return {name: tuple(cell.strip() for cell in rest.split(" | ")) for name, rest in rows}


def test_the_docs_table_of_causes_says_what_the_registry_says() -> None:
    text = (REPO / "docs" / "traces.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ((?:`\w+`(?: / )?)+) \| (\w[\w ]*) \|", text, flags=re.M)
    documented = {
        c.strip("`"): (kind, severity) for kind, causes, severity in rows for c in causes.split(" / ")
    }
    registered = {
        name: (c.kind.value, "above all" if name == REPORTED else c.severity.value)
        for name, c in CAUSES.items()
    }
    assert documented == registered


def test_the_docs_table_of_the_rulebook_says_what_the_registry_says() -> None:
    documented = {name: cells[-1] for name, cells in _table("rulebook.md").items()}
    registered = {
        r.name: f"{r.severity.value}, blocking" if r.blocking else r.severity.value
        for r in defaults().values()
    }
    assert {n: d for n, d in documented.items() if n in registered} == registered
