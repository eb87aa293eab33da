"""What an ingest understood, said in a few lines: by `filon ingest` after its files, by the receiver in
its log. The stacks detected, the traces that were no conversation, the turns whose content was not
captured with the setting that turns it on for those stacks, and the tools seen with which ones count as
an escalation (a name missing there is what `--escalation-tool` is for)."""

from __future__ import annotations

from filon.miner.core.messages import said
from filon.tracing.conventions import CONVENTIONS, GENAI, Convention, settings
from filon.tracing.ingest_stats import IngestStats


def notes(stats: IngestStats, lang: str = "en") -> list[str]:
    """What the ingest understood, in `lang` (the CLI's and the logs': English)."""
    out = []
    if stats.stacks:
        read = ", ".join(
            f"{CONVENTIONS[name].label} {count}"
            for name, count in sorted(stats.stacks.items())
            if name in CONVENTIONS
        )
        out.append(said("summary.read", read=read))
    if stats.skipped:
        out.append(said("summary.skipped", count=stats.skipped))
    if stats.uncaptured:
        how = settings(capturing(stats), "capture")
        out.append(said("summary.uncaptured", count=stats.uncaptured, how=how))
    if stats.tools:
        escalations = sorted(name for name, escalates in stats.tools.items() if escalates)
        named = ", ".join(escalations) if escalations else said("doctor.none")
        out.append(said("summary.tools", tools=", ".join(sorted(stats.tools)), escalations=named))
    return [line.render(lang) for line in out]


def capturing(stats: IngestStats) -> list[Convention]:
    """The conventions whose content setting applies: the stacks of the turns without content (of every
    stack detected, for figures from before they were counted apart), the GenAI one only alone (another
    stack's spans carry GenAI attributes of their own too)."""
    names = stats.uncaptured_stacks or stats.stacks
    found = [CONVENTIONS[name] for name in sorted(names) if name in CONVENTIONS]
    others = [c for c in found if c is not GENAI]
    return others or found


class Announcer:
    """What a long-running receiver says once, not on every request: each stack the first time its spans
    come, the first trace that was no conversation, the first turns without content (with the setting
    for the stacks seen), each tool name first treated as an escalation."""

    def __init__(self) -> None:
        self._said: set[str] = set()

    def news(self, stats: IngestStats) -> list[str]:
        out = []
        for name in sorted(stats.stacks):
            if name in CONVENTIONS and self._first(f"stack:{name}"):
                out.append(said("summary.reading", label=CONVENTIONS[name].label).render("en"))
        if stats.skipped and self._first("skipped"):
            out.append(said("summary.skipping").render("en"))
        if stats.uncaptured:
            for convention in capturing(stats):
                if self._first(f"capture:{convention.name}"):
                    how = said(convention.capture)
                    out.append(said("summary.no_content", label=convention.label, how=how).render("en"))
        for name, escalates in sorted(stats.tools.items()):
            if escalates and self._first(f"escalation:{name}"):
                out.append(said("summary.escalation", tool=name).render("en"))
        return out

    def _first(self, key: str) -> bool:
        if key in self._said:
            return False
        self._said.add(key)
        return True
