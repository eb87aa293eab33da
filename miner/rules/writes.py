"""What an agent did to the world: its write calls (`write_tools` in filon.toml), whether each succeeded,
and the three ways a write goes wrong that spans show without knowing the agent's domain.

A tau-bench airline agent that fails mostly fails on a write: a reservation booked twice, a payment id it
made up, a change made before the customer said yes. The right trials of the same tasks write less, and
when they do, they write what the customer confirmed with values the agent read. So:
- `unconfirmed_write` (high): where the agent's policy asks for the customer's explicit confirmation
  (`confirm_writes = true`), a write made on a turn whose message confirms nothing, unless it retries
  on the same record a write the customer said yes to that failed (« use my gift card then »);
- `ungrounded_write` (high): a write with an argument the agent found nowhere (an id, an amount, a date or
  a name in no tool result it read and not in the customer's words): made up;
- `repeated_write` (medium): the same write succeeding twice on the same record: the first was wrong, or
  this one duplicates it;
- `write_made` (low), once a conversation: the customer's records changed, where a mistake costs most;
  `several_writes` (medium) when they changed twice or more;
- `no_lookup` (medium): three customer turns or more and not one call (the agent answered from memory,
  or sent the customer away: half of the benchmark's failed trials that wrote nothing); only for an agent
  whose tools filon.toml declares (`tools` or `write_tools`), since some stacks record no call at all.
A call failed when its span did, or when its result says so (`failure`: tau-bench's tools answer
« Error: … » as a result, the reference shop's `{"erreur": …}`): a failed write changed nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Any

from filon.miner.core.causes import cause
from filon.miner.core.jsontext import dumps
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag, ToolCall
from filon.miner.core.results import failed_result
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.text import fold
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.registry import detector

UNCONFIRMED_WRITE = cause(
    "unconfirmed_write",
    FlagKind.WRITE,
    Severity.HIGH,
    "the customer's records changed before they said yes, where the agent's policy asks them to",
)
UNGROUNDED_WRITE = cause(
    "ungrounded_write",
    FlagKind.WRITE,
    Severity.HIGH,
    "a write with an id, amount, date or name the agent read nowhere: it wrote what it made up",
)
REPEATED_WRITE = cause(
    "repeated_write",
    FlagKind.WRITE,
    Severity.MEDIUM,
    "the same record changed twice: the first change was wrong, or this one duplicates it",
)
WRITE_MADE = cause(
    "write_made",
    FlagKind.WRITE,
    Severity.LOW,
    (
        "the customer's records changed (a booking, a cancellation, a return): where a wrong answer costs the"
        " most, worth a look before a conversation that changed nothing"
    ),
)
SEVERAL_WRITES = cause(
    "several_writes",
    FlagKind.WRITE,
    Severity.MEDIUM,
    (
        "the customer's records changed more than once: each change is one more chance of a wrong one (on "
        "tau-bench's airline, 15 of the 17 trials that wrote twice or more were wrong)"
    ),
)
NO_LOOKUP = cause(
    "no_lookup",
    FlagKind.GROUNDING,
    Severity.MEDIUM,
    (
        "several turns answered without a single call: the agent answered from memory or sent the customer "
        "away without looking anything up"
    ),
)


def failure(call: ToolCall) -> str | None:
    """Why the call failed, or None: its span's error, or a result that is an error message."""
    return call.error or failed_result(call.result)


def succeeded_writes(conv: Conversation, cfg: FlagConfig) -> Iterator[tuple[int, ToolCall]]:
    """(turn, call) of every write that succeeded, in order; escalations are not writes here (they have
    their own flag and the case's `escalade`)."""
    for i, turn in enumerate(conv.turns):
        for call in turn.tools:
            if cfg.writes(call.name) and not cfg.escalates(call.name) and failure(call) is None:
                yield i, call


# the customer's yes: « yes, please proceed », « go ahead », « oui, allez-y », « je confirme »
_YES = re.compile(
    r"\b(?:yes|yeah|yep|yup|sure|ok|okay|confirm|confirmed|confirming|go ahead|proceed|please do|do it|"
    r"book it|that'?s (?:right|correct|fine)|correct|sounds good|let'?s do|oui|d'accord|je confirme|"
    r"confirme|allez-y|vas-y|c'est bon|parfait|ca marche|volontiers)\b"
)
_NO = re.compile(r"^\W*(?:no|non|nope|don'?t|do not|wait|attendez|pas encore)\b")


def confirms(message: str) -> bool:
    """Whether a customer's message says yes to what the agent proposed."""
    text = fold(message)
    return _YES.search(text) is not None and _NO.match(text) is None


_ID_LIKE = re.compile(r"\d|^[A-Z0-9]{5,}$")
_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_MONTHS = (
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ],
    [
        "janvier",
        "fevrier",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "aout",
        "septembre",
        "octobre",
        "novembre",
        "decembre",
    ],
)


def _leaves(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is dict:
            stack.extend(v.values())
        elif type(v) is list:
            stack.extend(v)
        else:
            yield v


def _checked(value: Any) -> str | None:
    """The form an argument is looked for in, for the values a write should never make up: ids, dates,
    amounts (strings with a digit, codes in capitals, numbers from 10); None for the others (a cabin,
    "no", a count)."""
    if type(value) is bool or value is None:
        return None
    if type(value) in (int, float):
        return None if abs(value) < 10 else _number(value)
    text = str(value).strip()
    return fold(text) if len(text) >= 3 and _ID_LIKE.search(text) else None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


_THOUSANDS = re.compile(r"(?<=\d)[,\u202f\u00a0 ](?=\d{3}\b)")


class Seen:
    """What the agent read before a call, folded: the customer's words, the results of the calls before
    it (failed ones included: an error names what was not found) and the arguments of those that
    succeeded (a search on the date the customer gave, whose results do not repeat it)."""

    def __init__(self) -> None:
        self.text = ""

    def add(self, text: str) -> None:
        self.text += "\n" + _THOUSANDS.sub("", fold(text))

    def has(self, form: str) -> bool:
        if form in self.text:
            return True
        day = _ISO_DAY.match(form)
        if day is None:
            return False
        try:
            when = date(int(day[1]), int(day[2]), int(day[3]))
        except ValueError:
            return False
        return (
            any(
                f"{months[when.month - 1]} {when.day}" in self.text
                or f"{when.day} {months[when.month - 1]}" in self.text
                for months in _MONTHS
            )
            or f"{when.month}/{when.day}" in self.text
        )


def _made_up(call: ToolCall, seen: Seen) -> str | None:
    for value in _leaves(call.arguments):
        form = _checked(value)
        if form is not None and not seen.has(form):
            return str(value)
    return None


def _record(call: ToolCall) -> tuple[str, ...]:
    """The ids a write names (its id-like string arguments, sorted): what it changed."""
    return tuple(sorted(str(v) for k, v in call.arguments.items() if type(v) is str and _ID_LIKE.search(v)))


def _retried(call: ToolCall, failed: list[tuple[str, set[str]]]) -> bool:
    """Whether a write retries one the customer confirmed and that failed (the same tool on a record it
    named): « use my gift card instead » after « payment method not found » needs no second yes."""
    record = set(_record(call))
    return any(name == call.name and ids & record for name, ids in failed)


SEVERAL = 2  # writes in one conversation from which each one more is a risk worth a reviewer's look
NO_LOOKUP_TURNS = 3  # a greeting and a thank-you need no tool; three turns of a customer's business do


def _no_lookup(conv: Conversation) -> list[Flag]:
    """A conversation of several customer turns in which the agent called nothing at all."""
    answered = [t for t in conv.turns if t.user.strip() and t.agent.strip()]
    if len(answered) < NO_LOOKUP_TURNS or any(t.tools for t in conv.turns):
        return []
    why = said("flag.no_lookup", n=len(answered))
    return [Flag.of(NO_LOOKUP, len(conv.turns) - 1, why, conv.turns[-1].trace_id)]


@detector(
    "write",
    rank=100,
    causes=(UNCONFIRMED_WRITE, UNGROUNDED_WRITE, REPEATED_WRITE, WRITE_MADE, SEVERAL_WRITES, NO_LOOKUP),
)
def writes(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """`write_made` once (the first write), then `unconfirmed_write`, `ungrounded_write` and
    `repeated_write`, at most one of each per turn; `no_lookup` for a conversation that called nothing."""
    out: list[Flag] = []
    first = next(succeeded_writes(conv, cfg), None)
    if first is None:  # `no_lookup` only for an agent whose tools are declared (some stacks record none)
        declared = cfg.write_tools is not None or cfg.tools is not None
        return _no_lookup(conv) if declared else []
    i, call = first
    out.append(Flag.of(WRITE_MADE, i, said("flag.write_made", tool=call.name), conv.turns[i].trace_id))
    made = list(succeeded_writes(conv, cfg))
    if len(made) >= SEVERAL:
        j, _ = made[-1]
        why = said("flag.several_writes", n=len(made), tools=list(dict.fromkeys(c.name for _, c in made)))
        out.append(Flag.of(SEVERAL_WRITES, j, why, conv.turns[j].trace_id))
    seen = Seen()
    done: dict[tuple[str, tuple[str, ...]], int] = {}
    # writes the customer said yes to that failed: a retry of one on the same record is confirmed
    failed: list[tuple[str, set[str]]] = []
    for i, turn in enumerate(conv.turns):
        seen.add(turn.user)
        raised: set[str] = set()
        for call in turn.tools:
            writing = cfg.writes(call.name) and not cfg.escalates(call.name)
            confirmed = confirms(turn.user) or (writing and _retried(call, failed))
            broke = failure(call)
            if writing and broke is not None and confirmed:
                failed.append((call.name, set(_record(call))))
            if writing and broke is None:
                if cfg.confirm_writes and not confirmed and UNCONFIRMED_WRITE not in raised:
                    raised.add(UNCONFIRMED_WRITE)
                    why = said("flag.unconfirmed_write", tool=call.name)
                    out.append(Flag.of(UNCONFIRMED_WRITE, i, why, turn.trace_id))
                made_up = _made_up(call, seen)
                if made_up is not None and UNGROUNDED_WRITE not in raised:
                    raised.add(UNGROUNDED_WRITE)
                    why = said(
                        "flag.ungrounded_write", tool=call.name, value=said("flag.quoted", words=made_up[:60])
                    )
                    out.append(Flag.of(UNGROUNDED_WRITE, i, why, turn.trace_id))
                key = (call.name, _record(call))
                if key in done and REPEATED_WRITE not in raised:
                    raised.add(REPEATED_WRITE)
                    why = said("flag.repeated_write", tool=call.name, first=done[key] + 1)
                    out.append(Flag.of(REPEATED_WRITE, i, why, turn.trace_id))
                done.setdefault(key, i)
            if call.result is not None:
                seen.add(call.result if type(call.result) is str else dumps(call.result))
            if broke is None and call.arguments:
                seen.add(dumps(call.arguments))
    return out
