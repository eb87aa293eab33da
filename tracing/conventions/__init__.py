"""Readers of the conventions other stacks emit, each turning its spans into the OpenTelemetry GenAI
attributes `tracing.grouping` reads: detected per span (never configured), one table of attributes each.

`readable(spans)` is the one entry: a span in the GenAI convention comes back as it is; a span another
convention marks is translated. `stack_of(span)` names the convention a span belongs to, or None for a
span that is not about the model (an HTTP server span, a database query): a trace made only of those is
no conversation. Each reader module has `NAME`, `LABEL`, `MARKS` (attributes that identify it), `CAPTURE`
(the setting that makes that stack record message content), `SESSION` (how its spans get a conversation
id) and `to_genai`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from filon.miner.core.messages import Said, chained, said
from filon.tracing.conventions import (
    adk,
    claude_code,
    genkit,
    langfuse_sdk,
    logfire_agents,
    openinference,
    pydantic_ai,
    shapes,
    traceloop,
    vercel_ai,
)
from filon.tracing.records import SpanRecord, with_attributes


@dataclass(frozen=True)
class Convention:
    name: str
    label: str
    marks: tuple[str, ...]
    capture: str  # the code of how to make the stack record the messages (`stack.NAME.capture`)
    session: str  # the code of how to give the stack's spans a conversation id
    translate: Callable[[SpanRecord], SpanRecord] | None = None


READERS = tuple(
    Convention(m.NAME, m.LABEL, m.MARKS, m.CAPTURE, m.SESSION, m.to_genai)
    for m in (
        openinference,
        vercel_ai,
        adk,
        traceloop,
        pydantic_ai,
        logfire_agents,
        genkit,
        claude_code,
        langfuse_sdk,
    )
)
GENAI = Convention(
    "otel_genai",
    "OpenTelemetry GenAI",
    (
        "gen_ai.operation.name",
        "gen_ai.system",
        "gen_ai.provider.name",
        "gen_ai.conversation.id",
        # a stack that names no operation nor system (OpenLIT, Semantic Kernel's events, AI SDK v7) is
        # still about a model when it carries its messages, its model or its usage
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.usage.input_tokens",
        "gen_ai.tool.name",
    ),
    "stack.otel_genai.capture",
    "stack.otel_genai.session",
)
CONVENTIONS = {c.name: c for c in (*READERS, GENAI)}


def settings(stacks: Sequence[Convention], which: str) -> Said | str:
    """Each stack's `capture` or `session` setting, « label: setting », joined by semicolons: what
    `traces doctor` and ingest's notes advise."""
    told = [said("doctor.stack_advice", label=c.label, advice=said(getattr(c, which))) for c in stacks]
    return chained(told, "text.semicolons")


_MARKS = tuple((mark, reader) for reader in READERS for mark in reader.marks)
_FOREIGN = frozenset(mark for mark, _ in _MARKS)  # `isdisjoint` tests a span's keys against all at C speed
_GENAI = frozenset(GENAI.marks)
JUST_GENAI = frozenset((GENAI.name,))
SCOPES = {  # stacks known by their instrumentation scope
    scope: CONVENTIONS[m.NAME] for m in (pydantic_ai, logfire_agents, claude_code) for scope in m.SCOPES
}
PREFIXES = {claude_code.PREFIX: CONVENTIONS[claude_code.NAME]}  # stacks known by their spans' names
_PREFIXES = tuple(PREFIXES)


def _placed_at_all(span: SpanRecord) -> bool:
    """Whether a span's scope or name tells its stack (`_placed`), in two C-level tests."""
    return span.scope in SCOPES or span.name.startswith(_PREFIXES)


def _placed(span: SpanRecord) -> Convention | None:
    """The stack a span's scope or name tells, where no attribute of its marks it."""
    known = SCOPES.get(span.scope)
    if known is None and span.name.startswith(_PREFIXES):
        known = next(c for p, c in PREFIXES.items() if span.name.startswith(p))
    return known


def stack_of(span: SpanRecord) -> Convention | None:
    """The convention that marks this span, or None when it is not about the model."""
    attrs = span.attributes
    if not _FOREIGN.isdisjoint(attrs):
        for mark, reader in _MARKS:
            if mark in attrs:
                return reader
    known = _placed(span)
    if known is not None:
        return known
    return None if _GENAI.isdisjoint(attrs) else GENAI


def stacks_of(spans: Sequence[SpanRecord]) -> set[Convention]:
    """The conventions of a trace's spans (empty: a trace that is not about the model). A trace in the
    GenAI convention alone, the common case, is told by C-level set tests, not a call per span."""
    genai = False
    for span in spans:
        attrs = span.attributes
        if not _FOREIGN.isdisjoint(attrs) or _placed_at_all(span):
            return {c for s in spans if (c := stack_of(s)) is not None}
        if not genai and not _GENAI.isdisjoint(attrs):
            genai = True
    return {GENAI} if genai else set()


# Logfire's (and pydantic-ai 0.2's) messages, a list of event bodies in one attribute
_LISTED = ("events", "all_messages_events")
_LISTS = frozenset(_LISTED)


def _listed(span: SpanRecord) -> SpanRecord:
    """A span whose messages are a list of event bodies, with them as GenAI messages too."""
    attrs = span.attributes
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        return span
    value = next((attrs[k] for k in _LISTED if k in attrs), None)
    inputs, outputs = shapes.from_events(value)
    if not (inputs or outputs):
        return span
    added: dict[str, Any] = {}
    if inputs:
        added["gen_ai.input.messages"] = inputs
    if outputs:
        added["gen_ai.output.messages"] = outputs
    return with_attributes(span, {**attrs, **added})


# a model call's messages kept whole, one attribute each (older GenAI examples, OpenLLMetry's JSON form)
_WHOLE = frozenset(("gen_ai.prompt", "gen_ai.completion"))


def _whole(span: SpanRecord) -> SpanRecord:
    attrs = span.attributes
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        return span
    inputs, outputs = shapes.from_whole(attrs.get("gen_ai.prompt"), attrs.get("gen_ai.completion"))
    added: dict[str, Any] = {}
    if inputs:
        added["gen_ai.input.messages"] = inputs
    if outputs:
        added["gen_ai.output.messages"] = outputs
    return with_attributes(span, {**attrs, **added}) if added else span


def read(spans: Sequence[SpanRecord]) -> tuple[Sequence[SpanRecord], frozenset[str] | None]:
    """`readable(spans)` and the names of the conventions found (`stacks_of`); None for the common case
    of no other convention's span, where the caller, who sorts the spans by operation anyway, tells a
    GenAI trace from one that is not about the model. One look at each span tells its convention and
    translates it."""
    if any(not _LISTS.isdisjoint(s.attributes) for s in spans):
        spans = [_listed(s) if not _LISTS.isdisjoint(s.attributes) else s for s in spans]
    if any(not _WHOLE.isdisjoint(s.attributes) for s in spans):
        spans = [_whole(s) if not _WHOLE.isdisjoint(s.attributes) else s for s in spans]
    for span in spans:
        if not _FOREIGN.isdisjoint(span.attributes) or _placed_at_all(span):
            break
    else:
        return spans, None
    out: list[SpanRecord] = []
    found: set[str] = set()
    for span in spans:
        attrs = span.attributes
        if _FOREIGN.isdisjoint(attrs):  # GenAI, a stack known by its scope, or not about the model
            convention = stack_of(span)
            if convention is not None:
                found.add(convention.name)
                if convention.translate is not None and convention is not GENAI:
                    span = convention.translate(span)
            out.append(span)
            continue
        for mark, reader in _MARKS:
            if mark in attrs:
                found.add(reader.name)
                out.append(reader.translate(span) if reader.translate else span)
                break
    return out, frozenset(found)


def readable(spans: Sequence[SpanRecord]) -> Sequence[SpanRecord]:
    """The spans in the GenAI convention: each one another convention marks, translated."""
    return read(spans)[0]
