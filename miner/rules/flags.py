"""Flag rules: pure functions over a conversation. Each flag has a cause (which fixes its kind and severity,
`miner/core/severity.py`), the turn and a reason.

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

from filon.miner.core.jsontext import dumps_sorted
from filon.miner.core.model import Conversation, Flag, Turn
from filon.miner.core.severity import Cause
from filon.miner.reading.claims import claimed, denied, looks_up_an_order, offered_change, spoken
from filon.miner.reading.facts import facts
from filon.miner.reading.grounding import Seen, admitted, grounded, seen_in
from filon.miner.reading.language import language
from filon.miner.reading.matching import has as _has
from filon.miner.reading.policy import keyed, unsupported
from filon.miner.reading.policy import stated as policy_stated
from filon.miner.reading.text import fold, formal
from filon.miner.rules.config import FlagConfig, source_texts
from filon.miner.rules.corrections import corrected
from filon.miner.rules.identity_rule import unverified
from filon.miner.rules.security_rule import security
from filon.miner.rules.writes import failure, writes

# the customer asks for a person: « can I speak to a human », « un conseiller svp », « a supervisor »
_ASKS_A_PERSON = re.compile(
    r"\b(?:human|a person|real person|someone else|somebody|supervisor|manager|representative|"
    r"live agent|human agent|an agent|transfer me|humain|conseiller|une personne|quelqu'un|responsable)\b"
)


def escalation(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """A hand-over to a person: `transfer_asked` (low) when the customer asked for one in that turn or
    before, as every policy allows; `transferred` (medium) otherwise."""
    out = []
    asked = False
    for i, t in enumerate(conv.turns):
        asked = asked or _ASKS_A_PERSON.search(fold(t.user)) is not None
        if not t.tools:
            continue
        call = next((c for c in t.tools if cfg.escalates(c.name)), None)
        if call is not None:
            cause = Cause.TRANSFER_ASKED if asked else Cause.TRANSFERRED
            out.append(Flag.of(cause, i, f"escalated with {call.name}", t.trace_id))
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
        elif not t.agent.strip() and t.captured and not any(cfg.escalates(c.name) for c in t.tools):
            out.append(Flag.of(Cause.EMPTY_ANSWER, i, "the agent answered nothing", t.trace_id))
    return out


def rate_limit(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(Cause.QUOTA, i, "quota exhausted (429 / RESOURCE_EXHAUSTED) during the turn", t.trace_id)
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
            why = f"{failed[0].name} failed: {failed[0].error}"
            out.append(Flag.of(Cause.TOOL_FAILED, i, why, t.trace_id))
        refused = next((c for c in t.tools if failure(c) is not None), None)
        if refused is not None and t.agent.strip() and not _ADMITS.search(fold(t.agent)):
            why = f"{refused.name} failed ({str(failure(refused))[:80]}) and the answer says nothing of it"
            out.append(Flag.of(Cause.FAILURE_UNSAID, i, why, t.trace_id))
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


# a discount code the answer hands out (« avec le code BIENVENUE », « utilisez le code NOEL20 »): a gesture
# whatever the words around it; not one refused (« n'est plus valable », « réservé à… »), nor the customer's
_CODE = re.compile(
    r"\b(?i:avec|utilisez|utilise|saisissez|entrez|voici|profitez|with|use|enter|apply)\b[^.!?\n]{0,30}?"
    r"\b(?i:code)\s+(?i:promo\s+|de\s+r[ée]duction\s+)?«?\s*([A-Z][A-Z0-9]{3,})\b"
)
# refused, said of the code itself: « le code NOEL20 n'est plus valable », « is no longer valid », « je ne
# peux pas appliquer le code NOEL20 »; not a « ne » later in the sentence (« vous ne paierez pas le port »)
_REFUSED_AFTER = re.compile(
    r"^\s*»?\s*,?\s*(?:n'|ne |est (?:expir|r[ée]serv|invalide|plus)|has expired|is (?:no longer|not|only|invalid|expired)"
    r"|isn't|only works|expire)",
    re.IGNORECASE,
)
_REFUSED_BEFORE = re.compile(
    r"(?:ne (?:peux|pouvons) pas|n'accept|can't|cannot|unable to)[^.!?]*$", re.IGNORECASE
)


def _code_given(answer: str, asked: str) -> str | None:
    """The discount code the answer hands out, if it hands one out."""
    for sentence in re.split(r"[.!?\n]", answer):
        found = _CODE.search(sentence)
        if found is None or found.group(1) in asked:
            continue
        if not (
            _REFUSED_AFTER.search(sentence[found.end() :])
            or _REFUSED_BEFORE.search(sentence[: found.start()])
        ):
            return f"code {found.group(1)}"
    return None


# a gesture refused in its own sentence: « I cannot offer a voucher », « je ne peux pas vous offrir… »
_DENIED = re.compile(
    r"(?:\b(?:cannot|can't|can not|unable to|not able to|won't|will not|do not|don't|not allowed to|"
    r"ne (?:peux|pouvons|puis) pas|pas possible|impossible de|aucun|aucune|pas de)\b)[^.!?\n]*$"
)


def _promised(answer: str, patterns: list[str] | tuple[str, ...]) -> str | None:
    """A gesture promised in one of the answer's sentences, not refused there."""
    for sentence in re.split(r"(?<=[.!?\n])", formal(fold(answer))):
        found = _has(sentence, patterns, sentence)
        if found is None:
            continue
        at = sentence.find(fold(found))
        if at < 0 or not _DENIED.search(sentence[:at]):
            return found
    return None


def promise(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """A commercial gesture promised (and not refused in its sentence) with no escalation, nor a write of
    the agent's own that makes it (a cancellation that refunds), in its turn."""
    out = []
    patterns = cfg.rules.rules["geste_promis"].patterns or cfg.promise_patterns
    for i, t in enumerate(conv.turns):
        pattern = _promised(t.agent, patterns) if t.agent else None
        pattern = pattern or _code_given(t.agent, t.user)
        backed = any(
            cfg.escalates(c.name) or (cfg.write_tools is not None and cfg.writes(c.name)) for c in t.tools
        )
        if pattern and not backed:
            why = f"promises « {pattern} » with no escalation behind it"
            out.append(Flag.of(Cause.UNBACKED_PROMISE, i, why, t.trace_id))
    return out


def grounding(
    conv: Conversation, cfg: FlagConfig, allowed: Sequence[str] = (), production: bool = True
) -> list[Flag]:
    """The rulebook's `action_affirmee` and `fait_non_fonde` (`miner.reading.grounding`): an action the answer
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
    lang = ""  # French or English (`miner.reading.language`), told once a turn states a fact
    for i, t in enumerate(conv.turns):
        if not t.agent.strip():
            continue  # nothing said (or not captured): nothing to hold to the rules
        if claims:
            out += _claimed(conv.turns, i, cfg)
        if not facts_rule:
            continue
        if unrecorded(conv.turns, i) is not None:
            continue  # a result not recorded: what the agent saw is not known (`not_evaluated` says it)
        day = t.started_at.date()
        lang = lang or language((t.agent for t in conv.turns), (t.user for t in conv.turns))
        stated = facts(t.agent, day, lang)
        folded = fold(t.agent)
        policies = policy_stated(folded)  # rules said without a figure: a fee, a condition, an exclusion
        if not (stated or policies):
            continue
        if seen is None:
            seen = seen_in(source_texts(cfg.sources), day, lang)
        for turn in conv.turns[read : i + 1]:
            seen.add(turn.user, day)
            for c in turn.tools:
                seen.add(c.result, day, lookup=looks_up_an_order(c.name), about=c.name)
        read = i + 1
        missing = [
            f"« {f.said} » ({f.kind})"
            for f in stated
            if not grounded(f, seen, day) and not admitted(f, allowed)
        ]
        if policies:
            missing += _unread_rules(folded, conv.turns[: i + 1], seen.text, cfg, allowed)
        if missing:
            why = f"{', '.join(missing[:3])} found in no tool result, help passage or customer's words"
            out.append(Flag.of(Cause.UNGROUNDED_FACT, i, why, t.trace_id))
    return out


def _claimed(turns: Sequence[Turn], i: int, cfg: FlagConfig) -> list[Flag]:
    """`action_affirmee` on turn i: an action claimed that no call of the conversation did, or denied
    though a call of this turn did it."""
    t = turns[i]
    calls = ((c.name, c.result, c.error) for turn in turns[: i + 1] for c in turn.tools)
    said = spoken(t.agent)
    phrase = claimed(t.agent, calls, cfg.escalation_tools, said)
    if phrase is not None:
        why = f"the answer says « {phrase} » and no call of the conversation did it"
        return [Flag.of(Cause.CLAIMED_ACTION, i, why, t.trace_id)]
    phrase = offered_change(said, cfg.change_capable())
    if phrase is not None:
        why = f"the answer says « {phrase} » and none of the agent's tools changes an order"
        return [Flag.of(Cause.CLAIMED_ACTION, i, why, t.trace_id)]
    own = ((c.name, c.result, c.error) for c in t.tools)
    phrase = denied(t.agent, own, cfg.escalation_tools, said)
    if phrase is not None:
        why = f"the answer says « {phrase} » and a call of this turn did it"
        return [Flag.of(Cause.CLAIMED_ACTION, i, why, t.trace_id)]
    return []


def _unread_rules(
    folded: str, turns: Sequence[Turn], seen: str, cfg: FlagConfig, allowed: Sequence[str]
) -> list[str]:
    """The rules an answer states that neither what the agent read (each result with its keys) nor the
    agent's own help texts state, quoted as a report says them."""
    read_keyed = " ".join(fold(keyed(c.result)) for turn in turns for c in turn.tools)
    unread = unsupported(folded, f"{seen} {read_keyed}", policy_texts(cfg.policy_folders()))
    return [f"« {c} » (règle)" for c in unread if not admitted_rule(c, allowed)]


@lru_cache(maxsize=4)
def _policy_texts(folders: tuple[str, ...]) -> str:
    return fold(" ".join(source_texts(folders)))


def policy_texts(folders: Sequence[str]) -> str:
    """The agent's help texts that state its rules, folded, read once per process."""
    return _policy_texts(tuple(folders))


def admitted_rule(clause: str, allowed: Sequence[str]) -> bool:
    """A rule a case admits (`faits_admis`): its words in the clause."""
    return any(fold(a) in clause for a in allowed)


def _first_unrecorded(turns: Sequence[Turn]) -> tuple[int, str] | None:
    """The turn and tool of the first call whose result the stack did not record (and that did not fail)."""
    found = ((i, c.name) for i, t in enumerate(turns) for c in t.tools if c.result is None and not c.error)
    return next(found, None)


def unrecorded(turns: Sequence[Turn], i: int) -> str | None:
    """The tool of the first call up to turn `i` whose result the stack did not record, or None. After
    it, what the agent saw is not known."""
    first = _first_unrecorded(turns[: i + 1])
    return None if first is None else first[1]


def not_evaluated(turns: Sequence[Turn], cfg: FlagConfig) -> list[tuple[int, str, str]]:
    """The turns production could not hold to `fait_non_fonde` (a result not recorded, in it or before
    it): (turn, rule, reason), said where the conversation is shown, never a pass and never a flag."""
    rule = cfg.rules.rules["fait_non_fonde"]
    first = _first_unrecorded(turns) if rule.enabled and rule.production else None
    if first is None:
        return []
    since, tool = first
    why = f"the result of {tool} was not recorded: what the agent saw is not known"
    return [(i, "fait_non_fonde", why) for i, t in enumerate(turns) if i >= since and t.agent.strip()]


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
    """What the customer said of the answers: a negative score on a turn, or words that correct it."""
    scored = [
        Flag.of(Cause.NEGATIVE_FEEDBACK, i, f"negative feedback ({t.feedback:g}) on this turn", t.trace_id)
        for i, t in enumerate(conv.turns)
        if t.feedback is not None and t.feedback < 0
    ]
    return scored + corrected(conv)


def identity(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return unverified(conv, cfg)


RULES: dict[str, Callable[[Conversation, FlagConfig], list[Flag]]] = {
    "security": security,
    "identity": identity,
    "escalation": escalation,
    "error": error,
    "rate_limit": rate_limit,
    "tool_error": tool_error,
    "loop": loop,
    "promise": promise,
    "grounding": grounding,
    "write": writes,
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
    raised = [
        *security(conv, cfg),
        *unverified(conv, cfg),
        *promise(conv, cfg),
        *grounding(conv, cfg, allowed, production=False),
    ]
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
