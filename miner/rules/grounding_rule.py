"""An answer held to what the agent did and saw: the rulebook's `action_affirmee` and `fait_non_fonde`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache

from filon.miner.core.causes import cause
from filon.miner.core.messages import Said, said
from filon.miner.core.model import Conversation, Flag, Turn
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.articles import names_an_article, read_articles, unread_articles
from filon.miner.reading.claims import claimed, denied, looks_up_an_order, offered_change, spoken
from filon.miner.reading.facts import Fact, facts
from filon.miner.reading.grounding import Seen, admitted, forget_values, grounded, seen_in
from filon.miner.reading.language import language
from filon.miner.reading.policy import keyed, names_unnamed, unknown_subjects, unsupported
from filon.miner.reading.policy import stated as policy_stated
from filon.miner.reading.text import fold, forget_folded
from filon.miner.rules.config import FlagConfig, source_texts
from filon.miner.rules.registry import detector

CLAIMED_ACTION = cause(
    "claimed_action",
    FlagKind.GROUNDING,
    Severity.HIGH,
    (
        "the answer says the agent did something no call of the conversation did: the customer waits for "
        "nothing"
    ),
    rule="action_affirmee",
    label="la réponse dit que l'agent a fait (ou fait) ce qu'aucun appel de la conversation ne fait",
    label_en="the answer says the agent did (or is doing) what no call of the conversation does",
    blocking=False,
    production=True,
)
UNGROUNDED_FACT = cause(
    "ungrounded_fact",
    FlagKind.GROUNDING,
    Severity.HIGH,
    "a figure, date, status, carrier or place the agent saw nowhere: a made-up fact the customer acts on",
    rule="fait_non_fonde",
    label=(
        "un chiffre, une date, un statut, un transporteur, un lieu ou un numéro de suivi que l'agent n'a vu "
        "nulle part (résultats d'outils, passages d'aide, mots du client)"
    ),
    label_en="a figure, a date, a status, a carrier, a place or a tracking number the agent saw nowhere (tool results, help passages, the customer's words)",
    blocking=False,
    production=True,
)


def _on_an_attempt(conv: Conversation, cfg: FlagConfig, allowed: Sequence[str]) -> list[Flag]:
    """As the gate runs it: every enabled rule, with the facts the case admits."""
    return grounding(conv, cfg, allowed, production=False)


@detector("grounding", rank=90, causes=(CLAIMED_ACTION, UNGROUNDED_FACT), gate=_on_an_attempt)
def grounding(
    conv: Conversation, cfg: FlagConfig, allowed: Sequence[str] = (), production: bool = True
) -> list[Flag]:
    """The rulebook's `action_affirmee` and `fait_non_fonde` (`miner.reading.grounding`): an action the answer
    claims that no successful call of the conversation so far did, a fact the agent saw nowhere. What it
    saw (its tool results, the customer's words, what a call that answered was asked, and what it was
    told: its recorded instructions and the declared `sources`) is read once per conversation, only when
    an answer states a fact or claims an action. A turn after a call whose result the stack did not
    record cannot be held to `fait_non_fonde` (what the agent saw is not known): skipped, never a pass.
    `production`: as ingest runs it, only the rules that flag production (`[rules.NAME] production`), and
    neither where the spans cannot say what the agent did and saw (`not_evaluated`)."""
    claims, facts_rule = _held(cfg, production)
    if not (claims or facts_rule):
        return []
    out: list[Flag] = []
    seen: Seen | None = None
    told: set[str] = set()  # the instructions read into `seen`
    read = 0  # the turns whose customer words and results are in `seen`
    lang = ""  # French or English (`miner.reading.language`), told once a turn states a fact
    folders = tuple(cfg.policy_folders())  # the help texts that state its rules
    for i, t in enumerate(conv.turns):
        if not t.agent.strip():
            continue  # nothing said (or not captured): nothing to hold to the rules
        if production and unseen(conv.turns, i):
            break  # calls the stack did not record: what the agent did and saw is not known from here on
        if claims:
            out += _claimed(conv.turns, i, cfg)
        if not facts_rule:
            continue
        if unrecorded(conv.turns, i) is not None or (production and untold(conv.turns, i, cfg)):
            continue  # a result not recorded, or what it was told: not known (`not_evaluated` says it)
        day = t.started_at.date()
        lang = lang or language((t.agent for t in conv.turns), (t.user for t in conv.turns))
        read_ = _answer_read(t.trace_id, t.agent, t.user, day, lang, folders)
        stated, folded, asked, policies, articles, services = read_
        if not (stated or policies or articles or services):
            continue
        if seen is None:  # the help texts and the instructions so far, read together once per process
            told = set(told_in(conv.turns[: i + 1]))
            seen = seen_in((*source_texts(cfg.sources), *told), day, lang)
        read = _see(seen, conv.turns, read, i, day, told)
        missing = [
            said("flag.quoted_kind", words=f.said, kind=f.kind)
            for f in stated
            if not grounded(f, seen, day) and not admitted(f, allowed)
        ]
        stating = (bool(policies), services, articles)
        missing += _rules_unread(folded, asked, conv.turns[: i + 1], seen, cfg, allowed, stating)
        if missing:
            why = said("flag.ungrounded_fact", facts=missing[:3])
            out.append(Flag.of(UNGROUNDED_FACT, i, why, t.trace_id))
    return out


def _held(cfg: FlagConfig, production: bool) -> tuple[bool, bool]:
    """Whether `action_affirmee` and `fait_non_fonde` hold here: enabled, and for production switched on
    there."""
    rules = cfg.rules.rules

    def on(name: str) -> bool:
        return rules[name].enabled and (rules[name].production or not production)

    return on("action_affirmee"), on("fait_non_fonde")


def _see(seen: Seen, turns: Sequence[Turn], read: int, i: int, day: date, told: set[str]) -> int:
    """What the agent saw in turns `read` to `i` added to `seen`: the customer's words, each result, what
    a call that answered was asked, and its instructions where they are new (a turn's own, never a later
    one's: a prompt that changes turn by turn, with retrieved passages, grounds only what follows it);
    `told`: the instructions `seen` holds, which grows. Returns the next turn to read."""
    for turn in turns[read : i + 1]:
        if turn.instructions and turn.instructions not in told:
            told.add(turn.instructions)
            seen.add(turn.instructions, day, source=True)
        seen.add(turn.user, day)
        for c in turn.tools:
            seen.add(c.result, day, lookup=looks_up_an_order(c.name), about=c.name)
            if c.error is None and c.result not in (None, "", [], {}) and c.arguments:
                seen.add(c.arguments, day, about=c.name, asked=True)  # what it asked and got an answer about
    return i + 1


Read = tuple[tuple[Fact, ...], str, str, tuple[tuple[frozenset[str], str, str], ...], bool, bool]


@lru_cache(maxsize=4096)
def _answer_read(trace: str, agent: str, user: str, day: date, lang: str, folders: tuple[str, ...]) -> Read:
    """What a turn's answer states, read once per process, not once per reading of its conversation:
    ingest flags a conversation again with each of its new turns, its earlier answers unchanged (the
    turn's trace id in the key: two conversations' equal answers are each read, as they come). The
    facts; the answer and the customer's words folded; the rules said without a figure (a fee, a
    condition, a limit); whether it names an article (« votre pull en lin ») or a service its help texts
    never name (an exchange, a sale)."""
    folded = fold(agent)
    asked = fold(user)
    services = bool(folders) and names_unnamed(folded, policy_texts(folders))
    policies = tuple(policy_stated(folded, asked))
    return tuple(facts(agent, day, lang)), folded, asked, policies, names_an_article(folded), services


def forget_readings() -> None:
    """The answers and the results read so far forgotten, as in a new process: a benchmark that reads the
    same traces in several rounds measures each round's reading, not the first one's kept."""
    _answer_read.cache_clear()
    forget_values()
    forget_folded()


def _claimed(turns: Sequence[Turn], i: int, cfg: FlagConfig) -> list[Flag]:
    """`action_affirmee` on turn i: an action claimed that no call of the conversation did, or denied
    though a call of this turn did it."""
    t = turns[i]
    calls = ((c.name, c.result, c.error) for turn in turns[: i + 1] for c in turn.tools)
    words = spoken(t.agent)
    phrase = claimed(t.agent, calls, cfg.escalation_tools, words)
    if phrase is not None:
        why = said("flag.claimed_undone", phrase=said("flag.quoted", words=phrase))
        return [Flag.of(CLAIMED_ACTION, i, why, t.trace_id)]
    phrase = offered_change(words, cfg.change_capable())
    if phrase is not None:
        why = said("flag.claimed_impossible", phrase=said("flag.quoted", words=phrase))
        return [Flag.of(CLAIMED_ACTION, i, why, t.trace_id)]
    own = ((c.name, c.result, c.error) for c in t.tools)
    phrase = denied(t.agent, own, cfg.escalation_tools, words)
    if phrase is not None:
        why = said("flag.claimed_denied", phrase=said("flag.quoted", words=phrase))
        return [Flag.of(CLAIMED_ACTION, i, why, t.trace_id)]
    return []


def _rules_unread(
    folded: str,
    asked: str,
    turns: Sequence[Turn],
    seen: Seen,
    cfg: FlagConfig,
    allowed: Sequence[str],
    stating: tuple[bool, bool, bool],
) -> list[Said]:
    """What an answer states without a figure that nothing the agent had states: a rule (`policies`), a
    service its help texts never name (`services`), an article of no order it read (`articles`)."""
    policies, services, articles = stating
    out: list[Said] = []
    if policies:
        out += _unread_rules(folded, turns, seen.text, cfg, allowed, asked)
    if services:
        unnamed = unknown_subjects(folded, seen.text, policy_texts(cfg.policy_folders()), asked)
        out += [said("flag.quoted_rule", words=c) for c in unnamed if not admitted_rule(c, allowed)]
    if articles:
        unread = unread_articles(folded, read_articles(seen.reported))
        out += [said("flag.quoted_article", words=a) for a in unread if not admitted_rule(a, allowed)]
    return out


def _unread_rules(
    folded: str, turns: Sequence[Turn], seen: str, cfg: FlagConfig, allowed: Sequence[str], asked: str = ""
) -> list[Said]:
    """The rules an answer states that neither what the agent read (each result with its keys) nor the
    agent's own help texts state, quoted as a report says them."""
    read_keyed = " ".join(fold(keyed(c.result)) for turn in turns for c in turn.tools)
    unread = unsupported(folded, f"{seen} {read_keyed}", policy_texts(cfg.policy_folders()), asked)
    return [said("flag.quoted_rule", words=c) for c in unread if not admitted_rule(c, allowed)]


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


def told_in(turns: Sequence[Turn]) -> tuple[str, ...]:
    """The agent's instructions these turns' spans recorded (`tracing.instructions`), each once: what it
    was told holds for the turns after, even where a long turn's spans lost it."""
    return tuple(dict.fromkeys(t.instructions for t in turns if t.instructions))


def untold(turns: Sequence[Turn], i: int, cfg: FlagConfig) -> bool:
    """Whether what the agent was told is not known at turn `i`: no `sources` declared and no
    instructions recorded up to it."""
    return not cfg.sources and not any(t.instructions for t in turns[: i + 1])


def unseen(turns: Sequence[Turn], i: int) -> bool:
    """Whether a model call up to turn `i` asked for tools the stack recorded nowhere (`Turn.unseen_calls`)."""
    return any(t.unseen_calls for t in turns[: i + 1])


def not_evaluated(turns: Sequence[Turn], cfg: FlagConfig) -> list[tuple[int, str, Said]]:
    """The turns production could not hold to the grounding rules: after calls the stack did not record
    (both rules); for `fait_non_fonde`, after a result not recorded, or until the agent's instructions
    are recorded when no `sources` are declared (what it was told is not known). (turn, rule, reason),
    said where the conversation is shown, never a pass and never a flag."""
    rules = cfg.rules.rules
    held = [n for n in ("action_affirmee", "fait_non_fonde") if rules[n].enabled and rules[n].production]
    unseen_since = next((i for i, t in enumerate(turns) if t.unseen_calls), len(turns))
    first = _first_unrecorded(turns)
    out: list[tuple[int, str, Said]] = []
    for i, t in enumerate(turns):
        if not t.agent.strip():
            continue
        if i >= unseen_since:
            out += [(i, n, said("flag.calls_not_recorded")) for n in held]
        elif "fait_non_fonde" in held and first is not None and i >= first[0]:
            out.append((i, "fait_non_fonde", said("flag.not_recorded", tool=first[1])))
        elif "fait_non_fonde" in held and untold(turns, i, cfg):
            out.append((i, "fait_non_fonde", said("flag.instructions_not_recorded")))
    return out
