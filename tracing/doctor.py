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

from filon.miner.core.messages import Said, render, said
from filon.miner.core.model import Turn, join_steps
from filon.miner.rules.config import ESCALATION, is_escalation
from filon.tracing.conventions import GENAI, Convention, readable, settings, stack_of
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

# what a share counts, as the console says it (the JSON keeps the English key)
WHAT = {
    "conversation id": "doctor.what.conversation_id",
    "customer's text": "doctor.what.customer_text",
    "answer": "doctor.what.answer",
    "tokens": "doctor.what.tokens",
    "tool arguments": "doctor.what.tool_arguments",
    "tool results": "doctor.what.tool_results",
    "user id (turns with tools)": "doctor.what.user_id",
    "agent's instructions": "doctor.what.instructions",
}


@dataclass
class Share:
    what: str
    have: int
    of: int
    advice: Said | str = ""  # how to get the rest, when some are missing (a sentence of `doctor.*`)

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
        out["shares"] = [{**asdict(s), "advice": render(s.advice, "en")} for s in self.shares]
        out["missing"] = [j for j, s in zip(out["shares"], self.shares, strict=True) if not s.whole]
        return out


def diagnose(
    records: list[SpanRecord],
    escalation_tools: list[str] | None = None,
    conversation_keys: Sequence[str] = CONVERSATION_KEYS,
    write_tools: list[str] | None = None,
    sources: Sequence[str] = (),
) -> Diagnosis:
    """What ingest would read of `records`, with the same escalation names and conversation keys; with no
    `write_tools` configured, the writes proposed from the tools' names; `sources`: the help texts
    declared (`sources` in filon.toml), which stand for instructions the spans do not record."""
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
        seen = {
            f"{k}={v}"
            for s in spans
            for k in conversation_keys
            if (v := s.attributes.get(k)) is not None and placeholder(v)
        }
        for item in seen:
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
    _shares(found, lived, list(conventions.values()), escalation, sources)
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


def _shares(
    found: Diagnosis,
    lived: list[tuple[str, Turn]],
    conventions: list[Convention],
    escalation: list[str],
    sources: Sequence[str] = (),
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
    capture, session = settings(stacks, "capture"), settings(stacks, "session")
    advice: dict[str, Said | str] = {
        "conversation id": session, "customer's text": capture, "answer": capture, "tokens": said("doctor.tokens")
    }  # fmt: skip
    if templated:
        advice["customer's text"] = said("doctor.templated", advice=capture, count=templated)
    found.shares = [
        Share(what, have, found.turns - (failed if what != "conversation id" else 0), advice[what])
        for what, have in counts.items()
    ]
    tool_advice = said("doctor.tool_advice", advice=capture)
    found.shares.append(Share("tool arguments", tool_args, with_tools, tool_advice))
    found.shares.append(Share("tool results", results, with_tools, tool_advice))
    found.shares.append(Share("user id (turns with tools)", identified, with_tools, said("doctor.user_id")))
    # what the agent was told holds for its whole conversation; a failed call may have recorded nothing
    told = {cid for cid, turn in lived if turn.instructions}
    had = sum(cid in told for cid, turn in lived if not turn.failed_spans)
    content = counts["answer"] == found.turns - failed
    told_advice: Said | str = capture  # without content, capturing it brings them too
    if content:  # declared `sources` stand for what the spans do not record: no need to ask for them
        told_advice = said("doctor.instructions_sourced" if sources else "doctor.instructions")
    found.shares.append(Share("agent's instructions", had, found.turns - failed, told_advice))
    for share in found.shares:
        if share.whole:
            share.advice = ""
    ids = [n for n in found.scrubbed if any(w in n.lower() for w in ("session", "conversation", "thread"))]
    if ids and not found.shares[0].whole:  # only a scrubbed attribute that looks like the conversation's
        found.shares[0].advice = said("doctor.scrub", names=", ".join(ids))


def lines(diagnosis: Diagnosis, lang: str = "en") -> list[str]:
    """The diagnosis for a terminal, one fact per line, in `lang` (the CLI's: English)."""
    return [line.render(lang) for line in _said(diagnosis)]


def _said(d: Diagnosis) -> list[Said]:
    stacks = [said("doctor.stack_spans", label=label, count=n) for label, n in sorted(d.stacks.items())]
    out = [
        said("doctor.counts", spans=d.spans, traces=d.traces, turns=d.turns, conversations=d.conversations),
        said("doctor.stacks", stacks=stacks or said("doctor.none")),
    ]
    if d.failed:
        out.append(said("doctor.failed", count=d.failed))
    if d.skipped:
        out.append(said("doctor.skipped", count=d.skipped))
    if d.unread:
        out.append(said("doctor.unread", names=", ".join(d.unread)))
    for share in d.shares:
        if share.of:
            mark = said("doctor.ok" if share.whole else "doctor.missing")
            what = said(WHAT[share.what]) if share.what in WHAT else share.what
            out.append(said("doctor.share", mark=mark, what=what, have=share.have, of=share.of))
            if share.advice:
                out.append(said("doctor.advice", advice=share.advice))
    if d.scrubbed:
        out.append(said("doctor.scrubbed", names=", ".join(d.scrubbed)))
    for item, n in sorted(d.placeholders.items()):
        out.append(said("doctor.placeholder", count=n, item=repr(item)))
    for line in d.shared_ids:
        out.append(said("doctor.shared_id", line=line))
    if d.several_turns:
        out.append(said("doctor.several_turns", count=d.several_turns))
    if d.cut:
        out.append(said("doctor.cut", count=d.cut))
    if d.tools:
        escalations = sorted(n for n, e in d.tools.items() if e)
        named = ", ".join(escalations) if escalations else said("doctor.none")
        out.append(said("doctor.tools", tools=", ".join(sorted(d.tools)), escalations=named))
    if d.proposed_write_tools:
        names = ", ".join(f'"{n}"' for n in d.proposed_write_tools)
        out.append(said("doctor.write_tools", names=names))
    return out
