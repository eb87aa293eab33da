"""Drafting a golden case from a conversation: the seeds' format, checks in the seeds' order of trust.

Actions first (tools, escalation, forbidden tools), then facts (amounts, delays, statuses found in the
answers, with their variants), words last. A draft made from a bad conversation encodes the correct
behaviour, not the observed one: a leak forbids the leaked values and the lookup that fetched them; a
promised gesture becomes an escalation with the promise forbidden; a loop, an error or a 429 says what
it is and proposes no vocabulary. Every check carries its origin for the reviewer: observed, corrected
or suggested. Pure functions: the TUI and `filon draft` share them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from filon.goldens.case.schema import Example, canal_of
from filon.goldens.drafting.check import Check, Origin
from filon.goldens.drafting.draft_facts import facts
from filon.goldens.drafting.draft_fixtures import fixtures_seen
from filon.goldens.drafting.draft_identity import identity_checks
from filon.goldens.drafting.draft_security import security_checks
from filon.goldens.drafting.draft_trajectory import (
    LOOKUPS,
    case_data_of,
    example_call,
    lookup_before_action,
    on_own,
    per_turn,
    spec,
)
from filon.goldens.drafting.draft_writes import write_checks
from filon.goldens.drafting.examples import example_of
from filon.goldens.drafting.leaks import redacted
from filon.goldens.drafting.naming import category, free_id, free_tel, kinds_of
from filon.goldens.set.caseset import escalation_tool
from filon.miner.core.model import Conversation, Flag
from filon.miner.reading.text import fold
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.identity_rule import IDENTITY_UNVERIFIED
from filon.miner.rules.security_rule import EXPOSURE, INJECTION_OBEYED, LEAK, others_values
from filon.miner.rules.writes import succeeded_writes
from filon.tracing.redact import Redactor, load_secret


@dataclass
class Draft:
    id: str
    categorie: str
    canal: str
    tours: list[str]
    checks: list[Check]
    tel: str | None = None
    fixtures: dict[str, Any] | None = None
    source: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    exemples: list[Example] = field(default_factory=list)
    observed: dict[str, Any] | None = None  # the conversation's own answer: what `b`/`m` add as examples
    beyond: dict[str, Any] = field(default_factory=dict)  # juge, proche_de, etat_final: kept as they are
    donnees: dict[str, str] = field(default_factory=dict)  # the case's own data its checks name

    def case(self) -> dict[str, Any]:
        """The case file's content, from the enabled checks, in the seeds' key order."""
        out: dict[str, Any] = {"id": self.id, "categorie": self.categorie, "canal": self.canal}
        if self.tel:
            out["tel"] = self.tel
        out["tours"] = list(self.tours)
        out.update(
            {"outils": [], "outils_interdits": [], "escalade": None, "contient": [], "ne_contient_pas": []}
        )
        for check in self.checks:
            if not check.enabled:
                continue
            if check.field == "simulation":  # the simulated customer plays the turns: its first is the case's
                out["simulation"] = check.value
                if isinstance(check.value, dict) and isinstance(check.value.get("premier_message"), str):
                    out["tours"] = [check.value["premier_message"]]
            elif check.field in WHOLE:  # one value for the whole field
                out[check.field] = check.value
            elif check.value not in out[check.field]:
                out[check.field].append(check.value)
        out.update(self.beyond)
        if self.donnees:
            out["donnees"] = self.donnees
        if self.fixtures:
            out["fixtures"] = self.fixtures
        out["source"] = self.source
        if self.notes:
            out["notes"] = self.notes
        if self.exemples:
            out["exemples"] = [e.model_dump(mode="json", exclude_unset=True) for e in self.exemples]
        return out

    @property
    def observed_wrong(self) -> str | None:
        """Why the conversation's own answer is what the case must refuse (a leak, a promise, an incident
        drafted as its bad example), or None: such an answer is never a good example."""
        if self.observed is None:
            return None
        said = self.observed.get("reponse")
        for e in self.exemples:
            if e.origine == "observé" and e.verdict == "mauvais" and e.reponse == said:
                return e.note or "observed answer flagged"
        return None

    def add_observed(self, verdict: str) -> bool:
        """The conversation's answer as an example of that verdict (a reviewer's call); False if none."""
        if self.observed is None:
            return False
        example = Example.model_validate({**self.observed, "verdict": verdict, "origine": "revue"})
        self.exemples = [e for e in self.exemples if e.reponse != example.reponse] + [example]
        return True


WHOLE = ("escalade", "ordre", "par_tour")  # fields a check sets whole, not one element of
BAD = frozenset({"security", "promise", "incident", "feedback"})  # the observed answer is what went wrong
TROUBLE = frozenset({"loop", "error", "rate_limit", "tool_error"})  # the observed answer is no answer


def draft_case(
    conv: Conversation,
    flags: list[Flag],
    taken_ids: set[str],
    taken_tels: set[str],
    reviewer: str = "",
    today: date | None = None,
    case_id: str | None = None,
    redactor: Redactor | None = None,
    cfg: FlagConfig | None = None,
) -> Draft:
    """A case from a conversation, redacted whatever the store (a case file lands in git). An agent whose
    writes filon.toml declares (`cfg.write_tools`) is drafted by what it did to the world
    (`goldens.drafting.draft_writes`); the reference shop's by its lookups and actions."""
    today = today or date.today()
    conv = redacted(conv, redactor or Redactor(load_secret(), (cfg or FlagConfig()).test_identities))
    day = conv.turns[0].started_at.date() if conv.turns else today
    kinds = kinds_of(flags)
    checks, notes, data = _checks(conv, flags, kinds, cfg)
    observed = example_of(conv) if writes_declared(cfg) else _observed(conv)
    # what it told was told unverified, or given to whoever asked: an injection obeyed, a leak, is never good
    broke = any(f.cause in (IDENTITY_UNVERIFIED, INJECTION_OBEYED, LEAK) for f in flags)
    exemples = (
        [] if observed is None or kinds & TROUBLE else [_observed_example(observed, checks, kinds, broke)]
    )
    incident = next((f for f in flags if f.kind == "incident"), None)
    if incident is not None and incident.reason:
        notes.append(f"Incident: {incident.reason}")
    sender = next((t.sender for t in conv.turns if t.sender), None)
    tel = free_tel(sender, taken_tels) if conv.channel == "whatsapp" else None
    categorie = category(conv, flags, cfg)
    return Draft(
        id=case_id or free_id(categorie, taken_ids),
        categorie=categorie,
        donnees=data,
        canal=canal_of(conv.channel),
        tours=[t.user for t in conv.turns if t.user],
        checks=checks,
        tel=tel,
        fixtures=_moved_tel(fixtures_seen(conv, day), sender, tel),
        source={
            "conversation_id": conv.id,
            "trace_ids": [t.trace_id for t in conv.turns],
            "flags": sorted(kinds),
            "reviewer": reviewer,
            "date": today.isoformat(),
            **({"incident": incident.reason} if incident is not None and incident.reason else {}),
        },
        notes=" ".join(notes),
        exemples=exemples,
        observed=observed,
    )


def _checks(
    conv: Conversation, flags: list[Flag], kinds: set[str], cfg: FlagConfig | None
) -> tuple[list[Check], list[str], dict[str, str]]:
    """The draft's checks, its notes and the case's own data they name, by what the conversation was."""
    if (
        "security" in kinds
        and {f.cause for f in flags} & {IDENTITY_UNVERIFIED}
        and not {f.cause for f in flags} & {LEAK, INJECTION_OBEYED}
    ):
        return (*identity_checks(conv, cfg or FlagConfig()), {})
    if "security" in kinds:
        return (*security_checks(conv, flags, cfg or FlagConfig()), {})
    if "promise" in kinds:
        return (*_promise_checks(conv), {})
    if cfg is not None and writes_declared(cfg):
        checks, data = write_checks(conv, cfg)
        if next(succeeded_writes(conv, cfg), None) is None:
            return _read_only_checks(conv, kinds, cfg, checks), [_READ_ONLY], data
        why = (
            "Drafted from what the conversation did: its writes with their arguments, the other writes "
            "forbidden. Say whether a hand-over is required (escalade)."
        )
        return checks, [why], data
    checks, notes = _observed_checks(conv, kinds)
    if cfg is not None and cfg.tools is not None and any(f.cause == EXPOSURE for f in flags):
        why = "another customer's data the agent saw: never in the answer"
        checks += [Check("ne_contient_pas", v, Origin.SUGGESTED, why) for v in others_values(conv, cfg)[1]]
    return checks, notes, {}


_READ_ONLY = (
    "Drafted from a conversation that changed nothing: the writes are forbidden; the tools it read with, "
    "its hand-over (or none) and the facts it told are proposed, off: enable those that are the policy."
)


def _read_only_checks(
    conv: Conversation, kinds: set[str], cfg: FlagConfig, writes: list[Check]
) -> list[Check]:
    """An agent with declared writes, on a conversation that made none (a question answered, a parcel
    tracked, a hand-over): the writes forbidden as `write_checks` drafts them; what it read, whether it
    handed over and the facts it told proposed, off. On tau-bench's airline trials, each of them enabled
    failed right trials of the same task (agreement 0.99 → 0.76 to 0.87, no wrong trial more caught): one
    conversation's lookups and hand-over are not the policy. The reviewer turns on what is (`space` in
    the review screen, `filon draft --proposed`)."""
    seen, _ = _observed_checks(conv, kinds)
    kept = list(writes)
    for check in seen:
        reads = check.field == "outils" and not any(
            cfg.writes(n) and not cfg.escalates(n) for n in _names(check.value)
        )
        if reads or check.field in ("escalade", "contient"):
            why = f"{check.why}; " if check.why else ""
            kept.append(
                replace(
                    check, enabled=False, why=f"{why}what this conversation did: enable if it is the policy"
                )
            )
    return kept


def _names(value: Any) -> list[str]:
    """The tools a check's value names: a name, a call spec, or a list of them (any one will do)."""
    if isinstance(value, list):
        return [n for v in value for n in _names(v)]
    return [str(value.get("outil") if isinstance(value, dict) else value)]


def _observed_example(
    observed: dict[str, Any], checks: list[Check], kinds: set[str], broke: bool = False
) -> Example:
    """The conversation's own answer as an example; a security flag is a bad answer only when something
    leaked or was told before the customer was identified (an injection refused is a good one)."""
    leaked = broke or any(c.field == "ne_contient_pas" and c.origin == Origin.CORRECTED for c in checks)
    bad = kinds & BAD - {"security"} or ("security" in kinds and leaked)
    verdict = "mauvais" if bad else "bon"
    return Example.model_validate(
        {**observed, "verdict": verdict, "origine": "observé", "note": _why(kinds, verdict)}
    )


def writes_declared(cfg: FlagConfig | None) -> bool:
    """Whether the agent's writes are declared (filon.toml's `write_tools`): it is drafted by them, and
    its examples carry what each call returned (an error result is a call that changed nothing)."""
    return cfg is not None and cfg.write_tools is not None


def _observed(conv: Conversation) -> dict[str, Any] | None:
    """The conversation's own answer as an example: its answers, and its calls turn by turn with their
    arguments (and failures), so that lint proves the drafted argument, order and per-turn checks."""
    turns = [t for t in conv.turns if t.user]
    answers = [t.agent for t in turns]
    if not any(a.strip() for a in answers):
        return None
    return {
        "reponse": answers[0] if len(answers) == 1 else answers,
        "outils": [[example_call(c) for c in t.tools] for t in turns],
        "escalade": any(t.escalated for t in conv.turns),
    }


def _why(kinds: set[str], verdict: str) -> str:
    if verdict == "bon":
        return "réponse observée sur la conversation d'origine : à confirmer par le relecteur"
    return "réponse observée, signalée " + ", ".join(sorted(kinds & BAD)) + " : ce que le cas doit refuser"


def _moved_tel(fixtures: dict[str, Any] | None, old: str | None, new: str | None) -> dict[str, Any] | None:
    """When the case gets another number than the sender's, the sender's customer moves with it."""
    if fixtures is None or not old or not new or old == new:
        return fixtures
    for client in fixtures.get("clients", []):
        if client.get("tel") == old:
            client["tel"] = new
    return fixtures


def _promise_checks(conv: Conversation) -> tuple[list[Check], list[str]]:
    checks = [
        Check(
            "outils", escalation_tool(), Origin.CORRECTED, "a commercial gesture is a conseiller's decision"
        ),
        Check("escalade", True, Origin.CORRECTED, "the agent promised instead of escalating"),
    ]
    said = fold(" ".join(t.agent for t in conv.turns))
    for promise in FlagConfig().promise_patterns:
        if fold(promise) in said:
            checks.append(Check("ne_contient_pas", promise, Origin.CORRECTED, "the observed promise"))
    return checks, ["Drafted from a promise flag: the correct behaviour is a transfer, with no promise."]


def _observed_checks(conv: Conversation, kinds: set[str]) -> tuple[list[Check], list[str]]:
    data = case_data_of(conv)
    calls = [c for t in conv.turns for c in t.tools]
    checks: list[Check] = []
    lookups = [c for c in calls if c.name in LOOKUPS]
    if lookups:
        why = "interchangeable lookups" + (
            ", on the number the customer gave" if on_own(lookups[0], data) else ""
        )
        checks.append(
            Check("outils", [spec(n, lookups[0], data, any_tool=True) for n in LOOKUPS], Origin.OBSERVED, why)
        )
    firsts = {c.name: c for c in reversed(calls) if c.name not in LOOKUPS}
    for name in dict.fromkeys(c.name for c in calls if c.name not in LOOKUPS):
        why = "with the number the customer gave" if on_own(firsts[name], data) else ""
        checks.append(Check("outils", spec(name, firsts[name], data), Origin.OBSERVED, why))
    order = lookup_before_action(calls, data)
    if order:
        checks.append(Check("ordre", order, Origin.OBSERVED, "the order is looked up before it is acted on"))
    blocks = per_turn(conv, data)
    if blocks:
        checks.append(Check("par_tour", blocks, Origin.OBSERVED, "what each turn did"))
    checks.append(Check("escalade", any(t.escalated for t in conv.turns), Origin.OBSERVED))
    trouble = kinds & TROUBLE
    if trouble:
        return checks, [
            f"Drafted from {', '.join(sorted(trouble))}: what the agent did was not a normal answer; "
            "no vocabulary is proposed. Write the expected facts by hand."
        ]
    checks += [
        Check("contient", g, Origin.SUGGESTED, "a fact found in the answers")
        for g in facts([t.agent for t in conv.turns])
    ]
    return checks, []
