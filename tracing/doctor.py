"""`filon traces doctor`: what filon understands of a payload before anything is stored, the first thing a
new user runs against their own agent's export.

It reads the spans exactly as ingest does (`tracing.grouping.turn_of` over the readers of
`tracing.conventions`), stores nothing, and says: the stacks detected, how many traces were no
conversation, and for the turns (as lived and as ingest counts them: where a stack makes a trace per
model call, a tool-call step is joined to the trace that answers), the share with a conversation id,
the customer's text, an answer, tool arguments and results (of the turns that called a tool; a value
still in a framework's wrapper counts as missing) and token counts; for each share short of whole, the
setting or line of code that adds it for the stacks detected; the attributes Logfire scrubbed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

from filon.miner.core.model import Turn, join_steps
from filon.miner.rules.config import ESCALATION, is_escalation
from filon.tracing.conventions import GENAI, Convention, readable, stack_of
from filon.tracing.conventions.envelopes import wrapped
from filon.tracing.grouping import (
    CONVERSATION_KEYS,
    MODEL_OPS,
    SCRUBBED,
    by_trace,
    last_text,
    op,
    placeholder,
    turn_of,
)
from filon.tracing.records import DROPPED, SpanRecord

TOOL_ADVICE = (
    "each tool's own arguments and return value, on its span (gen_ai.tool.call.arguments / result) or in "
    "the model's next input; a framework's wrapper around them that filon does not open is counted missing"
)
SCRUB = (
    "Logfire scrubbed {names}: an attribute named like 'session' (a default scrub pattern) carries no "
    "conversation id; name it gen_ai.conversation.id, or pass logfire.configure(scrubbing=ScrubbingOptions(callback=…))"
)
TOKENS = "the instrumentation records usage on model spans (gen_ai.usage.input_tokens / output_tokens)"


@dataclass
class Share:
    what: str
    have: int
    of: int
    advice: str = ""  # how to get the rest, when some are missing

    @property
    def whole(self) -> bool:
        return self.have == self.of


@dataclass
class Diagnosis:
    spans: int = 0
    traces: int = 0
    skipped: int = 0  # traces with no span of any GenAI convention
    unread: list[str] = field(default_factory=list)  # attributes of skipped traces that may hold the talk
    turns: int = 0
    failed: int = 0  # turns with a failed span: left out of the content and token shares
    conversations: int = 0
    stacks: dict[str, int] = field(default_factory=dict)  # label → spans
    shares: list[Share] = field(default_factory=list)
    tools: dict[str, bool] = field(default_factory=dict)  # tool name → an escalation by default
    scrubbed: list[str] = field(default_factory=list)  # attributes Logfire replaced by "[Scrubbed due to …]"
    cut: int = 0  # spans the SDK cut at its attribute limit (their oldest attributes dropped)
    several_turns: int = 0  # traces whose model calls answer more than one customer message
    placeholders: dict[str, int] = field(default_factory=dict)  # "key=value" of a placeholder id → traces
    shared_ids: list[str] = field(default_factory=list)  # ids that gather several users or overlapping turns
    proposed_write_tools: list[str] | None = None  # when filon.toml has no `write_tools`: from the names

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["missing"] = [asdict(s) for s in self.shares if not s.whole]
        return out


def diagnose(
    records: list[SpanRecord],
    escalation_tools: list[str] | None = None,
    conversation_keys: Sequence[str] = CONVERSATION_KEYS,
    write_tools: list[str] | None = None,
) -> Diagnosis:
    """What ingest would read of `records`, with the same escalation names and conversation keys; with no
    `write_tools` configured, the writes proposed from the tools' names."""
    escalation = escalation_tools or list(ESCALATION)
    found = Diagnosis(spans=len(records))
    found.cut = sum(1 for r in records if r.attributes.get(DROPPED))
    conventions: dict[str, Convention] = {}
    read: dict[str, list[Turn]] = {}  # conversation id → the turn each of its traces reads as
    scrubbed: set[str] = set()
    unread: set[str] = set()
    for spans in by_trace(records).values():
        found.traces += 1
        for s in spans:
            scrubbed.update(k for k, v in s.attributes.items() if type(v) is str and v.startswith(SCRUBBED))
        said = {
            f"{k}={v}"
            for s in spans
            for k in conversation_keys
            if (v := s.attributes.get(k)) is not None and placeholder(v)
        }
        for item in said:
            found.placeholders[item] = found.placeholders.get(item, 0) + 1
        marked = [c for s in spans if (c := stack_of(s)) is not None]
        if not marked:
            found.skipped += 1
            unread.update(_unread(spans))
            continue
        for c in marked:
            conventions[c.name] = c
            found.stacks[c.label] = found.stacks.get(c.label, 0) + 1
        one = turn_of(spans, escalation, conversation_keys=conversation_keys)
        read.setdefault(one.conversation_id, []).append(one.turn)
        found.several_turns += len(_asked(spans)) > 1
    found.conversations = len(read)
    found.scrubbed = sorted(scrubbed)
    found.unread = sorted(unread)[:8]
    found.shared_ids = shared(read)
    # the turns as lived, as ingest counts them: a tool-call step (a trace per model call) joined to its answer
    lived = [
        (cid, turn)
        for cid, turns in read.items()
        for turn in join_steps(sorted(turns, key=lambda t: t.started_at))
    ]
    _shares(found, lived, list(conventions.values()), escalation)
    if write_tools is None:
        found.proposed_write_tools = proposed_writes(
            n for n, escalates in found.tools.items() if not escalates
        )
    return found


# a framework's own prompt, read where the customer's message should be (CrewAI's task, a ReAct scaffold,
# Gemini CLI's context): never the customer's text
_PROMPT = re.compile(
    r"(?m)^\s*(?:Current Task:|Thought:|Final Answer:|Begin!|<session_context>|This is the expected criteria)"
)
_TALK = re.compile(r"input|output|prompt|completion|message|request|response|query|answer", re.I)


def _unread(spans: list[SpanRecord]) -> set[str]:
    """The attributes of spans no convention claims whose name and text look like a conversation's (a
    framework's own `mlflow.spanInputs`, `crew_inputs`…): named, so that skipping them is never silent."""
    return {
        k
        for s in spans
        for k, v in s.attributes.items()
        if type(v) is str
        and _TALK.search(k)
        and (v.lstrip()[:1] in ("{", "[") or " " in v.strip())
        and not k.startswith(("http.", "url.", "db.", "net.", "server.", "rpc."))
    }


def _asked(spans: list[SpanRecord]) -> set[str]:
    """The customer's newest messages the trace's model calls answer: more than one is more than one turn."""
    out = set()
    for s in readable(spans):
        if op(s) in MODEL_OPS:
            said = last_text(s.attributes.get("gen_ai.input.messages"), "user")
            if said:
                out.add(said)
    return out


def shared(read: dict[str, list[Turn]]) -> list[str]:
    """The conversation ids nothing but the id ties together: several customers (user ids) under one, or
    turns that ran at the same time (a customer waits for an answer before writing again)."""
    out = []
    for cid, turns in read.items():
        if cid.startswith("trace:") or len(turns) < 2:
            continue
        users = {t.sender for t in turns if t.sender}
        ordered = sorted(turns, key=lambda t: t.started_at)
        overlaps = sum(
            1
            for a, b in pairwise(ordered)
            if b.started_at.timestamp() * 1000 < a.started_at.timestamp() * 1000 + a.latency_ms - 1
        )
        if len(users) > 1 or overlaps:
            why = (
                f"{len(users)} users" if len(users) > 1 else f"{overlaps} turn(s) that ran while another did"
            )
            out.append(f"{cid} ({len(turns)} traces, {why})")
    return out


# the first word of a tool's name that changes the world, and one that only reads it
_WRITE_VERBS = frozenset(
    [
        "book",
        "cancel",
        "update",
        "create",
        "delete",
        "remove",
        "modify",
        "change",
        "send",
        "submit",
        "place",
        "refund",
        "return",
        "issue",
        "add",
        "set",
        "reset",
        "register",
        "apply",
        "confirm",
        "schedule",
        "reschedule",
        "upgrade",
        "downgrade",
        "pay",
        "charge",
        "exchange",
        "post",
        "write",
        "annuler",
        "modifier",
        "creer",
        "supprimer",
        "enregistrer",
        "demander",
        "envoyer",
        "rembourser",
        "reserver",
        "commander",
    ]
)


def proposed_writes(names: Iterable[str]) -> list[str]:
    """The tools whose name starts with a verb that changes the world (`cancel_reservation`,
    `updateOrder`, `demander_retour`): a proposal for filon.toml's `write_tools`, for the user to check."""
    out = []
    for name in names:
        words = re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())
        if words and words[0] in _WRITE_VERBS:
            out.append(name)
    return sorted(out)


USER_ID = (
    "set user.id (or enduser.id) on the agent's span to the customer's own identity: without it the leak "
    "rule knows the customer only by what they write (an email, a phone, an owner's id looked up as their "
    "profile), and a record shown to one who wrote none is only `unverified_record` (low); "
    "if your agent must identify a customer before showing a record, say identity_required = true in filon.toml"
)


def _shares(
    found: Diagnosis, lived: list[tuple[str, Turn]], conventions: list[Convention], escalation: list[str]
) -> None:
    """The share of turns with each thing filon reads, and the advice for the stacks detected."""
    counts = {"conversation id": 0, "customer's text": 0, "answer": 0, "tokens": 0}
    with_tools = tool_args = results = failed = identified = templated = 0
    for cid, turn in lived:
        counts["conversation id"] += not cid.startswith("trace:")
        if turn.failed_spans:  # a failed call (a 429) may have recorded nothing: not held against the stack
            failed += 1
        else:
            prompted = bool(_PROMPT.search(turn.user))  # a framework's prompt read in its place
            templated += prompted
            counts["customer's text"] += bool(turn.user.strip()) and not prompted
            counts["answer"] += bool(turn.agent.strip())
            counts["tokens"] += bool(turn.input_tokens or turn.output_tokens)
        if turn.tools:
            with_tools += 1
            tool_args += all(c.arguments and not wrapped(c.arguments) for c in turn.tools)
            results += all(c.result is not None and not wrapped(c.result) for c in turn.tools if not c.error)
            identified += bool(turn.sender)
        for call in turn.tools:
            found.tools[call.name] = is_escalation(call.name, escalation)
    found.turns, found.failed = len(lived), failed
    stacks = [c for c in conventions if c is not GENAI] or conventions
    capture = "; ".join(f"{c.label}: {c.capture}" for c in stacks)
    session = "; ".join(f"{c.label}: {c.session}" for c in stacks)
    advice = {"conversation id": session, "customer's text": capture, "answer": capture, "tokens": TOKENS}
    if templated:
        said = f" ({templated} read a framework's prompt, « Current Task: … », not the customer)"
        advice["customer's text"] += said
    found.shares = [
        Share(what, have, found.turns - (failed if what != "conversation id" else 0), advice[what])
        for what, have in counts.items()
    ]
    found.shares.append(Share("tool arguments", tool_args, with_tools, f"{capture} ({TOOL_ADVICE})"))
    found.shares.append(Share("tool results", results, with_tools, f"{capture} ({TOOL_ADVICE})"))
    found.shares.append(Share("user id (turns with tools)", identified, with_tools, USER_ID))
    for share in found.shares:
        if share.whole:
            share.advice = ""
    ids = [n for n in found.scrubbed if any(w in n.lower() for w in ("session", "conversation", "thread"))]
    if ids and not found.shares[0].whole:  # only a scrubbed attribute that looks like the conversation's
        found.shares[0].advice = SCRUB.format(names=", ".join(ids))


def lines(diagnosis: Diagnosis) -> list[str]:
    """The diagnosis for a terminal, one fact per line."""
    d = diagnosis
    stacks = ", ".join(f"{label} ({n} spans)" for label, n in sorted(d.stacks.items())) or "none"
    out = [
        f"{d.spans} spans, {d.traces} traces: {d.turns} turn(s) in {d.conversations} conversation(s)",
        f"stacks detected: {stacks}",
    ]
    if d.failed:
        out.append(f"{d.failed} turn(s) with a failed span: not counted for content and tokens")
    if d.skipped:
        out.append(f"{d.skipped} trace(s) with no span of any GenAI convention (HTTP, database…): skipped")
    if d.unread:
        out.append(
            f"skipped spans hold what may be the conversation in attributes filon does not read: "
            f"{', '.join(d.unread)}; emit GenAI spans for each turn (docs/any-agent.md)"
        )
    for share in d.shares:
        if share.of:
            mark = "ok" if share.whole else "MISSING"
            out.append(f"{mark:7} {share.what}: {share.have}/{share.of} turns")
            if share.advice:
                out.append(f"        → {share.advice}")
    if d.scrubbed:
        out.append(f"scrubbed by Logfire (values lost): {', '.join(d.scrubbed)}")
    for item, n in sorted(d.placeholders.items()):
        out.append(
            f"{n} trace(s) carry the placeholder {item!r} as their conversation id: each is read as its own "
            "conversation; set the real id (a session or a thread) where the exporter writes it"
        )
    for line in d.shared_ids:
        out.append(
            f"one conversation id gathers what nothing else ties together: {line}; is the id a constant or "
            "a placeholder your exporter writes?"
        )
    if d.several_turns:
        out.append(
            f"{d.several_turns} trace(s) answer more than one customer message: filon reads a trace as one "
            "turn (the first message), so start a trace (or an agent span) per customer message"
        )
    if d.cut:
        out.append(
            f"{d.cut} span(s) cut at the SDK's attribute limit (their oldest attributes, the customer's "
            "message and the session among them, dropped): raise OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (128 by "
            "default) in the agent's environment; filon reads the turn from its agent span where it can"
        )
    if d.tools:
        escalations = sorted(n for n, e in d.tools.items() if e) or ["none"]
        out.append(f"tools: {', '.join(sorted(d.tools))}; escalation: {', '.join(escalations)}")
    if d.proposed_write_tools:
        names = ", ".join(f'"{n}"' for n in d.proposed_write_tools)
        out.append(
            f"write_tools is not set: proposed from the tools' names (check it, then put it in filon.toml): "
            f"write_tools = [{names}]"
        )
    return out
