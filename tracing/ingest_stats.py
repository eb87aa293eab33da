"""What one ingest did, counted: spans, turns, conversations kept and sampled out, the stacks read, the
tools seen and the conversations flagged. Summed across batches by `filon ingest`, the receiver and the
helper process, and carried across the helper's pipe as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_PAIRS = 1_000_000


@dataclass
class IngestStats:
    spans: int = 0
    new_spans: int = 0
    turns: int = 0  # turns read, as lived: a tool-call step of a trace-per-call stack joined to its answer
    conversations: int = 0
    kept: int = 0  # turns stored
    sampled_out: int = 0  # turns not kept by the sample rate
    skipped: int = 0  # traces with no span of any GenAI convention (an HTTP health check): no conversation
    uncaptured: int = 0  # turns kept whose spans carry no content (the stack's content capture is off)
    uncaptured_stacks: dict[str, int] = field(default_factory=dict)  # those turns, by their conventions
    stacks: dict[str, int] = field(default_factory=dict)  # traces read, by convention (`tracing.conventions`)
    tools: dict[str, bool] = field(default_factory=dict)  # tool names seen → treated as an escalation
    # the (kind, conversation) pairs flagged: a conversation written by several batches counts once
    flagged_pairs: set[tuple[str, str]] = field(default_factory=set)

    @property
    def flagged(self) -> int:
        """Conversations with at least one flag."""
        return len({conv for _, conv in self.flagged_pairs})

    @property
    def flag_kinds(self) -> dict[str, int]:
        """Conversations flagged, by kind."""
        out: dict[str, int] = {}
        for kind, _ in self.flagged_pairs:
            out[kind] = out.get(kind, 0) + 1
        return out

    def as_json(self) -> dict[str, Any]:
        """For the pipe between the helper process and the agent's (a set is not JSON)."""
        out = {k: v for k, v in vars(self).items() if k != "flagged_pairs"}
        return {**out, "flagged_pairs": sorted(self.flagged_pairs)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IngestStats:
        fields = dict(data)
        pairs = fields.pop("flagged_pairs", [])
        stats = cls(**fields)
        stats.flagged_pairs = {(k, c) for k, c in pairs}
        return stats

    def add(self, other: IngestStats) -> None:
        for name in (
            "spans",
            "new_spans",
            "turns",
            "conversations",
            "kept",
            "sampled_out",
            "skipped",
            "uncaptured",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.stacks, other.stacks), (self.uncaptured_stacks, other.uncaptured_stacks)):
            for stack, count in theirs.items():
                mine[stack] = mine.get(stack, 0) + count
        self.tools.update(other.tools)
        if len(self.flagged_pairs) < MAX_PAIRS:  # a process's lifetime of flags: bounded, then approximate
            self.flagged_pairs |= other.flagged_pairs
