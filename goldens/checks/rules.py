"""The rulebook as a check kind: every attempt of every case held to the rules production flags by.

`Rules.grade` reads the transcript as a conversation and runs `miner.rules.flags.rule_flags`, the same
functions ingest flags production with (`fuite`, `injection_suivie`, `geste_promis`, `action_affirmee`,
`fait_non_fonde`), under the same `[rules.NAME]` configuration. A breach is a gap of kind `regle`; whether
it counts is the runner's (`goldens.checks.rules.standing`: a rule gates once no `bon` example of the set
breaks it, advisory otherwise), and a blocking rule's breach fails the gate whatever the score.

What the agent saw: in a replay, what its spans recorded (each call's result). A reviewer's example has no
spans: for the reference agent its calls are replayed on the case's own shop (its fixtures), with the
example's arguments or the case's own data (`goldens.checks.matching.case_data`), and a result the example
gives (`resultat`) is taken as it is; for another agent, only what the example gives, the declared
`sources` and the customer's words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from typing import Any

from filon.goldens.case.schema import Case
from filon.goldens.checks.base import Cost, Gap
from filon.goldens.checks.matching import case_data
from filon.miner.core.messages import Said, said
from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.core.transcript import Transcript
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import rule_flags


@dataclass
class Rules:
    name = "règles"
    cost = Cost.DETERMINISTIC
    config: FlagConfig = field(default_factory=FlagConfig.load)
    reference: bool = True  # the reference agent: an example's calls can be replayed on its shop
    # the day an example's answers were written (a held-aside table's): its calls are replayed on the shop
    # as it stood that day, whose dates are relative to it; None: today
    today: date | None = None
    _replayed: dict[str, dict[str, tuple[Any, str | None]]] = field(default_factory=dict, repr=False)

    def applies(self, case: Case) -> bool:
        return any(r.enabled for r in self.config.rules.rules.values())

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        conv = conversation(case, self.seen(case, transcript), self.today)
        allowed = [f.fait for f in case.faits_admis] + list(transcript.allowed)
        out: list[Gap] = []
        for flag in rule_flags(conv, self.config, allowed):
            rule = self.config.rules.of_cause(flag.cause)
            assert rule is not None
            out.append(
                Gap(
                    "regle",
                    f"regles.{rule.name}",
                    breach(rule.name, rule.description, rule.description_en, flag.said),
                    flag.turn + 1,
                )
            )
        return out

    def seen(self, case: Case, transcript: Transcript) -> Transcript:
        """The transcript with what the agent saw: a replay's as recorded; an example's calls with the
        results the agent would have seen on the case's shop (the reference agent's tools replayed)."""
        if transcript.from_spans or not self.reference:
            return transcript
        replayed = self._replayed.setdefault(case.id, {})
        data = case_data(case)
        turns = []
        for turn in transcript.turns:
            calls = []
            for call in turn.tools:
                if call.result is not None or call.error is not None:
                    calls.append(call)
                    continue
                if call.args is None and call.name == SEARCH:
                    # searched for what, the example does not say: any passage of the help texts may be
                    # what it read (an example that gives the question is held to what that question finds)
                    key = SEARCH
                    if key not in replayed:
                        replayed[key] = (_every_passage(), None)
                else:
                    args = call.args if call.args is not None else _defaults(call.name, data, turn.user)
                    key = json.dumps([call.name, args], sort_keys=True, ensure_ascii=False)
                    if key not in replayed:  # each call once on a fresh shop: no return registered twice
                        replayed[key] = _replay(case, call.name, args, self.today)
                result, error = replayed[key]
                calls.append(replace(call, result=result, error=error))
            turns.append(replace(turn, tools=calls))
        return transcript.model_copy(update={"turns": turns})


SEARCH = "rechercher_aide"  # the reference agent's retrieval


def breach(name: str, description: str, description_en: str, reason: Said | None) -> Said:
    """A breach as the gate says it: the rule, its description, and what the flag quoted (the facts with
    their kind, the words of the claim or the injection), taken from the values of the flag's reason."""
    quoted = quotes(reason) if reason is not None else []
    words = said("text.both", fr=description, en=description_en or description)
    return said(
        "gap.rule",
        name=name,
        description=words,
        quoted=said("gap.rule_quoted", quoted=quoted) if quoted else "",
    )


def quotes(sentence: Said) -> list[Said]:
    """The words a sentence quotes (`flag.quoted…`), in the order it names them, however deep."""
    out: list[Said] = []
    for value in sentence.params.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Said):
                out += [item] if item.code.startswith("flag.quoted") else quotes(item)
    return out


def _every_passage() -> dict[str, Any]:
    """The result of a search whose question is unknown: every passage of the reference agent's help texts."""
    from filon.agent.knowledge import passages

    return {"passages": [{"source": p.source, "titre": p.titre, "texte": p.texte} for p in passages()]}


def _replay(case: Case, tool: str, args: dict[str, Any], today: date | None = None) -> tuple[Any, str | None]:
    """One call of the reference agent's tools on the case's shop as it starts (on `today`, or the day
    it is): (result, error)."""
    from filon.agent.shop import new_shop
    from filon.agent.tools import Toolbox, ToolError

    writes = tool == "demander_retour"  # the only tool that changes the shop
    shop = new_shop(case.fixtures, today) if writes else _shop(case.fixtures, new_shop, today)
    try:
        return Toolbox(shop).run(tool, args), None
    except ToolError as exc:
        return {"erreur": str(exc)}, str(exc)


_SHOPS: dict[str, Any] = {}


def _shop(fixtures: dict[str, Any] | None, make: Any, today: date | None = None) -> Any:
    """A shop per set of fixtures and process, for the calls that only read it (a call that writes, a return, is
    replayed on a fresh one, as if it were the first)."""
    day = today or date.today()
    key = json.dumps([fixtures, day.isoformat()], sort_keys=True, default=str)  # no fixtures: one a day
    if key not in _SHOPS:
        _SHOPS[key] = make(fixtures, day)
    return _SHOPS[key]


def _defaults(tool: str, data: dict[str, str], asked: str) -> dict[str, Any]:
    """The arguments an example's call given by name most likely had: the case's order, the question."""
    if tool == "rechercher_aide":
        return {"question": asked}
    return {"numero": data.get("commande", ""), "motif": asked}


def conversation(case: Case, transcript: Transcript, today: date | None = None) -> Conversation:
    """The transcript as the flag rules read a conversation: the customer's identity is the case's
    `tel` on WhatsApp, and what they write; its turns on `today` (midday) when given, else now."""
    now = datetime.combine(today, time(12), tzinfo=UTC) if today else datetime.now(UTC)
    sender = case.tel if case.canal == "whatsapp" else None
    turns = [
        Turn(
            f"t{i}",
            now,
            user=t.user,
            agent=t.agent,
            tools=[_tool(c) for c in t.tools],
            escalated=t.escalated,
            sender=sender,
        )
        for i, t in enumerate(transcript.turns)
    ]
    channel = "whatsapp" if case.canal == "whatsapp" else "web"
    return Conversation(f"{channel}:case-{case.id}", channel, turns)


def _tool(call: ToolCall) -> ToolCall:
    """The call as the rules read it: an example's call given without arguments is read as taking none."""
    return call if call.arguments_recorded else replace(call, arguments_recorded=True)


MIN_TRIED = 20  # examples a rule must have been held to before it gates (the judge's 20 labels)


@dataclass
class Standing:
    """A rule on the set's examples: how many it could be tried on, the good ones it broke (naming them),
    the bad ones it caught; it gates only when it was tried on enough and broke no good one."""

    rule: str
    tried: int = 0
    good_broken: list[str] = field(default_factory=list)
    bad_caught: int = 0

    @property
    def gates(self) -> bool:
        return not self.good_broken and self.tried >= MIN_TRIED

    def why(self) -> Said:
        if self.good_broken:
            return said("lint.rule_breaks_good", n=len(self.good_broken), ids=self.good_broken[:5])
        if self.tried < MIN_TRIED:
            return said("lint.rule_tried_few", tried=self.tried, needed=MIN_TRIED)
        return said("lint.rule_gates")


def unknown_results(transcript: Transcript) -> bool:
    """A call whose result is not known: `fait_non_fonde` cannot be held to what the agent saw."""
    return any(c.result is None and c.error is None for c in transcript.calls)


@dataclass
class RuleGate:
    """The rulebook in a run: the rules, and each one's standing on the set (gating or advisory)."""

    rules: Rules
    standings: dict[str, Standing]

    def gates(self, name: str) -> bool:
        standing = self.standings.get(name)
        return standing is not None and standing.gates

    def apply(self, case: Case, transcript: Transcript) -> tuple[list[str], list[str], list[Said]]:
        """(gaps, blocking rules broken, advisory notes) of one attempt, as the gate's loop sees them."""
        ruled = GatingRules(self)
        gaps = ruled.grade(case, transcript)
        return [str(g) for g in gaps], ruled.blocking, ruled.notes


class GatingRules:
    """The rulebook as one kind of the grading loop, deterministic (it always runs): a breach of a rule
    that gates is a gap, one of an advisory rule a note. One per attempt: it keeps the blocking rules
    broken (they fail the gate whatever the score) and the notes, for the report."""

    name = "règles"
    cost = Cost.DETERMINISTIC

    def __init__(self, gate: RuleGate) -> None:
        self.gate = gate
        self.blocking: list[str] = []
        self.notes: list[Said] = []

    def applies(self, case: Case) -> bool:
        return self.gate.rules.applies(case)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        gaps = []
        for gap in self.gate.rules.grade(case, transcript):
            name = gap.check.split(".", 1)[1]
            if not self.gate.gates(name):
                self.notes.append(said("gap.advisory_rule", gap=gap.said))
                continue
            gaps.append(gap)
            if self.gate.rules.config.rules.rules[name].blocking and name not in self.blocking:
                self.blocking.append(name)
        return gaps
