"""What an ingest understood, said in a few lines: by `filon ingest` after its files, by the receiver in
its log. The stacks detected, the traces that were no conversation, the turns whose content was not
captured with the setting that turns it on for those stacks, and the tools seen with which ones count as
an escalation (a name missing there is what `--escalation-tool` is for)."""

from __future__ import annotations

from tracing.conventions import CONVENTIONS, GENAI, Convention
from tracing.ingest import IngestStats


def notes(stats: IngestStats) -> list[str]:
    out = []
    if stats.stacks:
        read = ", ".join(
            f"{CONVENTIONS[name].label} {count}"
            for name, count in sorted(stats.stacks.items())
            if name in CONVENTIONS
        )
        out.append(f"spans read by convention: {read}")
    if stats.skipped:
        out.append(
            f"skipped {stats.skipped} trace(s) with no span of any GenAI convention (HTTP, database…): not conversations"
        )
    if stats.uncaptured:
        out.append(
            f"{stats.uncaptured} turn(s) carry no content (not captured, so not flagged as unanswered); to capture it: "
            + "; ".join(f"{c.label}: {c.capture}" for c in capturing(stats))
        )
    if stats.tools:
        escalations = sorted(name for name, escalates in stats.tools.items() if escalates)
        out.append(
            f"tools seen: {', '.join(sorted(stats.tools))}; escalation: {', '.join(escalations) or 'none'}"
            " (--escalation-tool NAME adds one)"
        )
    return out


def capturing(stats: IngestStats) -> list[Convention]:
    """The conventions whose content setting applies: the stacks detected, the GenAI one only alone
    (another stack's spans carry GenAI attributes of their own too)."""
    found = [CONVENTIONS[name] for name in sorted(stats.stacks) if name in CONVENTIONS]
    others = [c for c in found if c is not GENAI]
    return others or found
