"""Flag rules: pure functions over a conversation. Each flag has a cause (which fixes its kind and severity,
`miner/severity.py`), the turn and a reason.

`incident` is never computed: a human raises it (`filon incident add`). `security` covers injection
patterns in user text and, above all, the seeds' incident: a tool result or an answer exposing an email
or phone number that is not the identity the user gave (an email they wrote, or their WhatsApp number).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from miner.config import FlagConfig, source_texts
from miner.grounding import Seen, admitted, claimed, facts, grounded, looks_up_an_order, seen_in
from miner.identities import PHONE_MIN, identities, phone_key
from miner.jsontext import dumps_sorted
from miner.model import Conversation, Flag, ToolCall
from miner.severity import Cause
from miner.text import fold


def _phone(value: str) -> str:
    return phone_key(value) or value


def _trie(words: list[str]) -> str:
    """A regex for a set of literal words, factored by common prefixes: at each position of the text the
    engine follows one branch per character instead of trying every word (about a third faster on
    twenty phrases). Matches only whole words of the set, leftmost first, like the plain alternation."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return build(root)


@lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex for a list of patterns, on folded text; and each folded pattern's original spelling."""
    originals: dict[str, str] = {}
    for p in patterns:
        originals.setdefault(fold(p), p)
    words = list(originals)
    if max(map(len, words), default=0) > 200:  # the trie is built by recursion, one level per character
        return re.compile("|".join(map(re.escape, words))), originals
    return re.compile(_trie(words)), originals


def _has(text: str, patterns: list[str] | tuple[str, ...], folded: str | None = None) -> str | None:
    """The pattern (as configured) found in the text, both folded (`folded`: the text folded already);
    the earliest in the text wins."""
    if not text or not patterns:
        return None
    regex, originals = _matcher(tuple(patterns))
    found = regex.search(fold(text) if folded is None else folded)
    return originals[found.group()] if found else None


def _records(value: Any, out: list[set[str]] | None = None) -> list[set[str]]:
    """The customer records in a tool result: each JSON object holding an email or a phone number,
    as the set of identifiers it carries directly."""
    out = [] if out is None else out
    if isinstance(value, dict):
        direct: set[str] = set()
        nested = []
        for v in value.values():
            kind = type(v)
            if kind is str:
                if "@" in v or len(v) >= PHONE_MIN:  # `identities`' own guards, without the call
                    direct |= identities(v)
            elif kind is int:
                if v >= 10**9 or v <= -(10**8):  # a phone number written as a number has ten digits or more
                    direct |= identities(str(v))
            elif kind is dict or kind is list:
                nested.append(v)
        if direct:
            out.append(direct)
        for v in nested:
            _records(v, out)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict | list):
                _records(v, out)
    return out


REPEATED_MIN = 5  # shorter values ("oui", "web", a quantity) say nothing of whose record it is


def _strings(value: Any) -> list[str]:
    """The strings of a JSON value worth comparing, in one pass without recursion."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        kind = type(v)
        if kind is str:
            if len(v) >= REPEATED_MIN:
                out.append(v)
        elif kind is dict:
            stack.extend(v.values())
        elif kind is list:
            stack.extend(v)
    return out


def _plain(text: str) -> str:
    """Lower case and straight apostrophes: how a model repeats a record's values (it copies them; it
    may change case or typography, seldom the accents). C routines only: every turn where another's
    record came back pays for it, where `fold` would cost ten times as much."""
    text = text.lower()
    return text.replace("’", "'") if "’" in text else text


_PLAINED: dict[str, str] = {}  # a shop's records repeat the same articles, names and statuses


def _plain_value(value: str) -> str:
    done = _PLAINED.get(value)
    if done is None:
        if len(_PLAINED) >= 4096:
            _PLAINED.clear()
        done = _PLAINED[value] = _plain(value)
    return done


def _repeated(call: ToolCall, answer: str, conv: Conversation, upto: int) -> list[str]:
    """The values of a tool result (articles, names, statuses…) the answer repeats (`_plain` both),
    longest first, leaving out the call's own arguments (the order number asked for) and what the user
    wrote themselves in the turns up to `upto` (read only when something is left)."""
    asked = _strings(call.arguments)
    found = [v for v in _strings(call.result) if v not in asked and _plain_value(v) in answer]
    if found:
        said = _plain(" ".join(t.user for t in conv.turns[: upto + 1]))
        found = [v for v in dict.fromkeys(found) if _plain_value(v) not in said]
    return sorted(found, key=len, reverse=True)


def security(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """Injection patterns; and data of a customer other than the user, in a tool result or in the answer.

    The user is who they said they are: the emails and phone numbers they wrote, their WhatsApp number,
    and the user id their stack gives (`user.id`, `enduser.id`…). A customer record in a tool result is
    theirs when it shares one of those identifiers; then all of its identifiers are theirs too. An identifier in the answer that is not theirs, or a value of
    another's record repeated in the answer (its articles, its name, its status) that the user did not
    write, is a `leak` (`injection_obeyed` when the turn carried an injection); another's record that
    reached the model only is an `exposure`; an injection with nothing leaked is `injection_refused`.
    Where nobody's identity is known (no user id on the spans, none written: most agents that are not
    the shop), a record shown is `unverified_record`, low: it may well be the user's own order; unless
    the agent must identify a customer first (`identity_required`, the shop's rule): then it is a leak.
    """
    out = []
    known: set[str] = set()
    for i, turn in enumerate(conv.turns):
        if turn.sender:  # the WhatsApp number, or the user id the stack gives (often an email)
            known |= identities(turn.sender) | {_phone(turn.sender)}
        known |= identities(turn.user)
        pattern = _has(turn.user, cfg.injection_patterns)
        foreign: list[ToolCall] = []  # the calls whose result carried another customer's record
        for call in turn.tools:
            stranger = False
            for record in _records(call.result):
                if record & known:
                    known |= record
                else:
                    stranger = True
            if stranger:
                foreign.append(call)
        repeated: list[str] = []
        if foreign and turn.agent:  # most turns never pay for this
            answer = _plain(turn.agent)
            for call in foreign:
                repeated += _repeated(call, answer, conv, i)
        leaked = identities(turn.agent) - known
        if (leaked or repeated) and not known and not pattern and not cfg.identity_required:
            # nobody's identity is known (no user id on the spans, none written): whose record, unknown
            what = "an identifier" if leaked else f"a customer record (« {repeated[0]} »)"
            why = (
                f"the answer shows {what} to a user whose identity the spans do not carry "
                "(set user.id on them to tell a leak from their own order)"
            )
            out.append(Flag.of(Cause.UNVERIFIED, i, why, turn.trace_id))
        elif leaked or repeated:
            what = (
                f"{len(leaked)} identifier(s) of another customer"
                if leaked
                else f"another customer's record (« {repeated[0]} »)"
            )
            cause = Cause.INJECTION_OBEYED if pattern else Cause.LEAK
            why = (
                f"injection « {pattern} » obeyed: the answer exposes {what}"
                if pattern
                else f"the answer exposes {what}"
            )
            out.append(Flag.of(cause, i, why, turn.trace_id))
        elif pattern:
            why = f"injection pattern « {pattern} » in the user's message, nothing exposed"
            out.append(Flag.of(Cause.INJECTION_REFUSED, i, why, turn.trace_id))
        if foreign and not (leaked or repeated) and (known or cfg.identity_required):
            why = f"{foreign[0].name} returned another customer's data to the agent, not shown to the user"
            out.append(Flag.of(Cause.EXPOSURE, i, why, turn.trace_id))
    return out


def escalation(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    for i, t in enumerate(conv.turns):
        if not t.tools:
            continue
        call = next((c for c in t.tools if cfg.escalates(c.name)), None)
        if call is not None:
            out.append(Flag.of(Cause.TRANSFERRED, i, f"escalated with {call.name}", t.trace_id))
    return out


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
            why = f"span(s) ended in error: {', '.join(sorted(set(failed)))}"
            out.append(Flag.of(Cause.SPAN_ERROR, i, why, t.trace_id))
        elif not t.agent.strip() and t.captured:  # a turn without content is a notice, not an error
            out.append(Flag.of(Cause.EMPTY_ANSWER, i, "the agent answered nothing", t.trace_id))
    return out


def rate_limit(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(Cause.QUOTA, i, "quota exhausted (429 / RESOURCE_EXHAUSTED) during the turn", t.trace_id)
        for i, t in enumerate(conv.turns)
        if t.error_types
        and any(e in ("429", "RESOURCE_EXHAUSTED") or "RESOURCE_EXHAUSTED" in e for e in t.error_types)
    ]


def tool_error(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    for i, t in enumerate(conv.turns):
        failed = [c for c in t.tools if c.error] if t.tools else None
        if failed:
            why = f"{failed[0].name} failed: {failed[0].error}"
            out.append(Flag.of(Cause.TOOL_FAILED, i, why, t.trace_id))
    return out


def loop(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    for i, t in enumerate(conv.turns):
        if len(t.tools) < cfg.loop_threshold:
            continue
        counts = Counter((c.name, dumps_sorted(c.arguments)) for c in t.tools)
        for (name, _args), n in counts.items():
            if n >= cfg.loop_threshold:
                why = f"{name} called {n} times with the same arguments"
                out.append(Flag.of(Cause.REPEATED_CALL, i, why, t.trace_id))
                break
    return out


def promise(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    out = []
    patterns = cfg.rules.rules["geste_promis"].patterns or cfg.promise_patterns
    for i, t in enumerate(conv.turns):
        pattern = _has(t.agent, patterns)
        if pattern and not any(cfg.escalates(c.name) for c in t.tools):
            why = f"promises « {pattern} » with no escalation behind it"
            out.append(Flag.of(Cause.UNBACKED_PROMISE, i, why, t.trace_id))
    return out


def grounding(
    conv: Conversation, cfg: FlagConfig, allowed: Sequence[str] = (), production: bool = True
) -> list[Flag]:
    """The rulebook's `action_affirmee` and `fait_non_fonde` (`miner.grounding`): an action the answer
    claims that no successful call of the conversation so far did, a fact the agent saw nowhere. What it
    saw is read once per conversation, only when an answer states a fact or claims an action. A turn
    after a call whose result the stack did not record cannot be held to `fait_non_fonde` (what the agent
    saw is not known): skipped, never a pass. `production`: as ingest runs it, only the rules that flag
    production (`[rules.NAME] production`)."""
    rules = cfg.rules.rules

    def on(name: str) -> bool:
        return rules[name].enabled and (rules[name].production or not production)

    claims, facts_rule = on("action_affirmee"), on("fait_non_fonde")
    if not (claims or facts_rule):
        return []
    out: list[Flag] = []
    seen: Seen | None = None
    read = 0  # the turns whose customer words and results are in `seen`
    for i, t in enumerate(conv.turns):
        if not t.agent.strip():
            continue  # nothing said (or not captured): nothing to hold to the rules
        if claims:
            calls = ((c.name, c.result, c.error) for turn in conv.turns[: i + 1] for c in turn.tools)
            phrase = claimed(t.agent, calls, cfg.escalation_tools)
            if phrase is not None:
                why = f"the answer says « {phrase} » and no call of the conversation did it"
                out.append(Flag.of(Cause.CLAIMED_ACTION, i, why, t.trace_id))
        if not facts_rule:
            continue
        unseen = any(c.result is None and not c.error for turn in conv.turns[: i + 1] for c in turn.tools)
        if unseen:
            continue  # a result not recorded: what the agent saw is not known
        day = t.started_at.date()
        stated = facts(t.agent, day)
        if not stated:
            continue
        if seen is None:
            seen = seen_in(source_texts(cfg.sources), day)
        for turn in conv.turns[read : i + 1]:
            seen.add(turn.user, day)
            for c in turn.tools:
                seen.add(c.result, day, lookup=looks_up_an_order(c.name))
        read = i + 1
        missing = [f for f in stated if not grounded(f, seen, day) and not admitted(f, allowed)]
        if missing:
            shown = ", ".join(f"« {f.said} » ({f.kind})" for f in missing[:3])
            why = f"{shown} found in no tool result, help passage or customer's words"
            out.append(Flag.of(Cause.UNGROUNDED_FACT, i, why, t.trace_id))
    return out


def latency(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(
            Cause.SLOW_TURN,
            i,
            f"turn took {t.latency_ms:.0f} ms (threshold {cfg.latency_ms:.0f} ms)",
            t.trace_id,
        )
        for i, t in enumerate(conv.turns)
        if t.latency_ms > cfg.latency_ms
    ]


def feedback(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(Cause.NEGATIVE_FEEDBACK, i, f"negative feedback ({t.feedback:g}) on this turn", t.trace_id)
        for i, t in enumerate(conv.turns)
        if t.feedback is not None and t.feedback < 0
    ]


RULES: dict[str, Callable[[Conversation, FlagConfig], list[Flag]]] = {
    "security": security,
    "escalation": escalation,
    "error": error,
    "rate_limit": rate_limit,
    "tool_error": tool_error,
    "loop": loop,
    "promise": promise,
    "grounding": grounding,
    "latency": latency,
    "feedback": feedback,
}
KINDS = ("incident", *RULES)


def flag_conversation(conv: Conversation, cfg: FlagConfig | None = None) -> list[Flag]:
    cfg = cfg or FlagConfig()
    return by_the_rulebook([f for rule in RULES.values() for f in rule(conv, cfg)], cfg)


def rule_flags(conv: Conversation, cfg: FlagConfig, allowed: Sequence[str] = ()) -> list[Flag]:
    """The flags of the rulebook's enabled rules, raised by the functions production is flagged by: what
    the gate grades every attempt by (`goldens.checks.rules`); `allowed`: the facts a case admits."""
    raised = [*security(conv, cfg), *promise(conv, cfg), *grounding(conv, cfg, allowed, production=False)]
    out = []
    for f in raised:
        rule = cfg.rules.of_cause(f.cause)
        if rule is not None and rule.enabled:
            out.append(f if f.severity == rule.severity else replace(f, severity=rule.severity.value))
    return out


def by_the_rulebook(flags: list[Flag], cfg: FlagConfig) -> list[Flag]:
    """The flags of a rulebook rule as the configuration has it: none if it is switched off, at its
    configured severity otherwise (production and the gate read the same `[rules.NAME]`)."""
    out = []
    for f in flags:
        rule = cfg.rules.of_cause(f.cause)
        if rule is None:
            out.append(f)
        elif rule.enabled and rule.production:
            out.append(f if f.severity == rule.severity else replace(f, severity=rule.severity.value))
    return out
