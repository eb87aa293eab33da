"""What failed on the way to an answer: a span, a tool, the quota, a loop of the same call, an answer
that says nothing of a failure."""

from __future__ import annotations

import re
from collections import Counter

from filon.miner.core.causes import cause
from filon.miner.core.jsontext import dumps_sorted
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.text import fold
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.registry import detector
from filon.miner.rules.writes import failure

SPAN_ERROR = cause(
    "span_error",
    FlagKind.ERROR,
    Severity.MEDIUM,
    "a step failed; the customer may have no answer",
)
EMPTY_ANSWER = cause(
    "empty_answer",
    FlagKind.ERROR,
    Severity.MEDIUM,
    "the customer got nothing back",
)
QUOTA = cause(
    "quota",
    FlagKind.RATE_LIMIT,
    Severity.MEDIUM,
    "a 429: an infrastructure failure the customer saw",
)
TOOL_FAILED = cause(
    "tool_failed",
    FlagKind.TOOL_ERROR,
    Severity.MEDIUM,
    "a tool failed; the answer may rest on nothing",
)
FAILURE_UNSAID = cause(
    "failure_unsaid",
    FlagKind.TOOL_ERROR,
    Severity.MEDIUM,
    (
        "a call failed and the answer says nothing of it: an error ignored, or a refused write made again "
        "with other arguments the customer was not told of"
    ),
)
REPEATED_CALL = cause(
    "repeated_call",
    FlagKind.LOOP,
    Severity.MEDIUM,
    "the same call over and over burns quota and time; the answer is usually still right",
)


@detector("error", rank=40, causes=(SPAN_ERROR, EMPTY_ANSWER))
def error(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    tool_names: set[str] | None = None  # the spans of tool calls: their failures are `tool_error`'s
    for i, t in enumerate(conv.turns):
        failed: list[str] = []
        if t.failed_spans:
            if tool_names is None:
                tool_names = {f"execute_tool {c.name}" for t in conv.turns for c in t.tools}
            failed = [n for n in t.failed_spans if n not in tool_names]
        if failed:
            why = said("flag.span_error", spans=sorted(set(failed)))
            out.append(Flag.of(SPAN_ERROR, i, why, t.trace_id))
        elif not t.agent.strip() and t.captured and not any(cfg.escalates(c.name) for c in t.tools):
            out.append(Flag.of(EMPTY_ANSWER, i, said("flag.empty_answer"), t.trace_id))
    return out


@detector("rate_limit", rank=50, causes=(QUOTA,))
def rate_limit(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(QUOTA, i, said("flag.quota"), t.trace_id)
        for i, t in enumerate(conv.turns)
        if t.error_types
        and any(e in ("429", "RESOURCE_EXHAUSTED") or "RESOURCE_EXHAUSTED" in e for e in t.error_types)
    ]


# the answer says something went wrong: « sorry », « unfortunately », « introuvable », « pas pu »…
_ADMITS = re.compile(
    r"sorry|unable|could ?n[o']t|can'?t|cannot|not found|error|issue|problem|unfortunately|seems|appears|"
    r"not possible|isn'?t|wasn'?t|didn'?t|failed|invalid|does ?n[o']t|however|"
    r"desole|malheureusement|introuvable|impossible|erreur|probleme|n'existe|ne trouve|pas pu|pas reussi|"
    r"echec|n'a pas|ne peu[tx]|semble|verifier|toutefois|cependant"
)


@detector("tool_error", rank=60, causes=(TOOL_FAILED, FAILURE_UNSAID))
def tool_error(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """A tool span that failed (`tool_failed`); and a call that failed in a turn whose answer says nothing
    went wrong (`failure_unsaid`: a lookup's error ignored, a refused write made again with other
    arguments without a word to the customer)."""
    out = []
    for i, t in enumerate(conv.turns):
        if not t.tools:
            continue
        failed = [c for c in t.tools if c.error]
        if failed:
            why = said("flag.tool_failed", tool=failed[0].name, error=failed[0].error)
            out.append(Flag.of(TOOL_FAILED, i, why, t.trace_id))
        refused = next((c for c in t.tools if failure(c) is not None), None)
        if refused is not None and t.agent.strip() and not _ADMITS.search(fold(t.agent)):
            why = said("flag.failure_unsaid", tool=refused.name, error=str(failure(refused))[:80])
            out.append(Flag.of(FAILURE_UNSAID, i, why, t.trace_id))
    return out


@detector("loop", rank=70, causes=(REPEATED_CALL,))
def loop(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    for i, t in enumerate(conv.turns):
        if len(t.tools) < cfg.loop_threshold:
            continue
        counts = Counter((c.name, dumps_sorted(c.arguments)) for c in t.tools)
        for (name, _args), n in counts.items():
            if n >= cfg.loop_threshold:
                why = said("flag.repeated_call", tool=name, n=n)
                out.append(Flag.of(REPEATED_CALL, i, why, t.trace_id))
                break
    return out
