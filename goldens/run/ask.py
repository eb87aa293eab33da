"""One turn with an agent, read as the gate reads it: `filon ask` and the TUI's try. The reference agent's
turn runs inside a span of filon's and is read from the spans it emitted (`traced_turn`); another
target's is one attempt of a one-turn case (`ask_target`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from opentelemetry import trace

from filon.agent.tools import ESCALATION_TOOL
from filon.goldens.case.schema import Case
from filon.goldens.run.runner import Attempt, play
from filon.goldens.run.spans import TraceCollector
from filon.miner.core.model import Turn
from filon.tracing.grouping import turn_of
from filon.tracing.records import from_sdk
from filon.tracing.setup import ensure_tracing


def traced_turn(
    run: Callable[[], str], message: str, escalation_tools: tuple[str, ...] = (ESCALATION_TOOL,)
) -> Turn:
    """One turn run by `run` (which returns the answer) inside a span of filon's, read from the spans it
    emitted as the gate reads a turn: `filon ask` on the reference agent."""
    fanout = ensure_tracing()
    collector = TraceCollector()
    fanout.add(collector)
    try:
        with trace.get_tracer("filon.ask").start_as_current_span("eval_turn ask") as span:
            trace_id = span.get_span_context().trace_id
            said = run()
        spans = [from_sdk(s) for s in collector.take(trace_id) if not s.name.startswith("eval_turn")]
    finally:
        fanout.remove(collector)
    if not spans:
        return Turn.exchange(message, said)
    seen = turn_of(spans, escalation_tools)
    return replace(seen.turn, user=message, agent=seen.turn.agent or said)


def ask_target(
    spec: str,
    message: str,
    conversation_id: str,
    canal: str = "web",
    tel: str | None = None,
    escalation_tools: tuple[str, ...] = (ESCALATION_TOOL,),
    otlp_port: int = 4318,
    span_timeout: float = 10.0,
) -> Attempt:
    """One turn with a target other than the reference agent (`filon ask --target`, the TUI's try): its
    answer, and the tools and escalation read from its spans, as a gate reads them."""
    from filon.goldens.run.targets import open_target

    case = Case(id="ask", categorie="ask", canal=canal, tel=tel, tours=[message])
    fanout = ensure_tracing()
    collector = TraceCollector()
    fanout.add(collector)
    try:
        with open_target(spec, otlp_port, span_timeout) as target:
            return play(case, 1, target, collector, "ask", escalation_tools, conversation_id)
    finally:
        fanout.remove(collector)
