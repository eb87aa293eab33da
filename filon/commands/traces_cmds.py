"""`filon traffic`, `filon ingest`, `filon traces list|show`, `filon incident add`: the mining half."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.text import Text

from filon.commands.common import (
    BackendOpt,
    ConversationArg,
    EscalationOpt,
    Exit,
    ModelOpt,
    ModelUrlOpt,
    PromptOpt,
    console,
    err_console,
    fail,
    say,
)
from filon.commands.traces_view import EXPORTS, groups_table, queue_table
from filon.miner.core import render
from filon.miner.core.untrusted import one_line
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.miner.core.messages import Said
    from filon.miner.core.model import Flag, Turn
    from filon.miner.core.severity import Severity
    from filon.miner.store import Store

traces_app = typer.Typer(help="Read the store: conversations, turns, tools, flags.", no_args_is_help=True)
incident_app = typer.Typer(
    help="Mark a conversation as an incident (top of the review queue).", no_args_is_help=True
)


def open_store() -> Store:
    from filon.miner.settings import SettingsError
    from filon.miner.store import Store, StoreError

    try:
        return Store.open()
    except StoreError as exc:
        fail(exc, Exit.FAILED)
    except SettingsError as exc:
        fail(exc)


def no_conversation(store: Store, conversation_id: str) -> NoReturn:
    """The one-line error for an id the store does not hold, with the ids it probably meant."""
    from rich.markup import escape

    from filon.miner.core.untrusted import clean

    def quoted(value: str) -> str:
        return escape(repr(clean(value)))

    near = store.traces.similar_ids(conversation_id)
    from filon.miner.core.messages import one_of

    hint = say("cli.did_you_mean", ids=one_of([quoted(n) for n in near])) if near else say("cli.ids_hint")
    fail(
        say("cli.no_conversation", id=quoted(conversation_id), store=escape(store.name), hint=hint),
        Exit.USAGE,
    )


def traffic(
    conversations: Annotated[int, typer.Option("--conversations", "-n", help="How many conversations.")] = 50,
    backend: BackendOpt = "gemini",
    prompt: PromptOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the simulated customers (random if unset).")
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Conversations at once.")] = 4,
    sample_rate: Annotated[
        float | None,
        typer.Option("--sample-rate", help="Share of unflagged conversations kept (FILON_SAMPLE_RATE, 0.1)."),
    ] = None,
    escalation_tool: EscalationOpt = None,
    model: ModelOpt = None,
    model_url: ModelUrlOpt = None,
) -> None:
    """Simulated customers talk to the traced agent; spans go through the real pipeline into the store.

    Example: filon traffic --conversations 200 --prompt agent/prompts/court.md
    """
    from filon.agent.model import MissingCredentials
    from filon.commands.pipeline import TrafficRun, run_traffic_into_store

    if conversations < 1 or concurrency < 1:
        fail(say("cli.traffic_counts"))
    try:
        run = TrafficRun(
            conversations, backend, prompt, seed, concurrency, sample_rate, escalation_tool, model, model_url
        )
        summary = run_traffic_into_store(run, console=err_console)
    except MissingCredentials as exc:
        fail(exc, Exit.INCONCLUSIVE)
    except (ValueError, FileNotFoundError) as exc:
        fail(exc)
    for text in summary:
        console.print(text, markup=False)
    if summary.interrupted:
        raise typer.Exit(130)  # ctrl-C: what was kept is stored and said above, but the run is not whole


@traces_app.command("list")
def traces_list(
    flag: Annotated[
        str | None, typer.Option("--flag", help="Only conversations with this flag kind.")
    ] = None,
    severity: Annotated[
        str | None,
        typer.Option("--severity", help="Only this severity and above: critical, high, medium, low."),
    ] = None,
    status: Annotated[
        str | None, typer.Option("--status", help="Review status: open, claimed, dismissed, done.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="How many, by review priority then newest.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="Export instead of a table: csv or jsonl (one conversation a line)."),
    ] = None,
    replays: Annotated[
        bool,
        typer.Option("--replays", help="The gate's own replays (filon eval), apart from production's."),
    ] = False,
    groups: Annotated[
        bool,
        typer.Option(
            "--groups",
            help="One line per failure (same cause, tools and channel), worst first, with its size.",
        ),
    ] = False,
    group: Annotated[
        str | None,
        typer.Option(
            "--group", help="The conversations of one failure group: its id (or its whole signature)."
        ),
    ] = None,
) -> None:
    """Conversations in review order (incidents, then severity), newest first, with why each is there.
    The gate's replays are kept apart: --replays lists them. --groups gathers them by failure: the cause
    of the most urgent flag, the channel and the tools called in order with their arguments' names.

    Example: filon traces list --severity high --json
    Example: filon traces list --groups --severity high
    Example: filon traces list --format csv --limit 1000 > queue.csv
    """
    from filon.miner.core.severity import ReviewStatus, Severity
    from filon.miner.rules.flags import KINDS

    if flag and flag not in KINDS:
        fail(say("cli.unknown_kind", value=repr(flag), known=list(KINDS)))
    levels = [s.value for s in Severity]
    if severity and severity not in levels:
        fail(say("cli.unknown_level", value=repr(severity), known=levels))
    statuses = [s.value for s in ReviewStatus]
    if status and status not in statuses:
        fail(say("cli.not_one_of", option="--status", value=repr(status), known=statuses))
    if fmt is not None and fmt not in EXPORTS:
        fail(say("cli.not_one_of", option="--format", value=repr(fmt), known=list(EXPORTS)))
    if groups and (flag or status or fmt or group is not None):
        fail(say("cli.groups_alone"))
    store = open_store()
    if groups:
        _groups(store, Severity(severity) if severity else None, limit, replays, as_json)
        return
    if group is not None:
        group = _signature_of(store, group, replays)
    rows = store.traces.list_conversations(
        flag, status, limit, Severity(severity) if severity else None, replays, group
    )
    if fmt is not None:
        try:
            EXPORTS[fmt](rows)
            sys.stdout.flush()
        except BrokenPipeError:  # `| head` read what it wanted: not an error of filon's
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the interpreter's last flush too
        return
    if as_json:
        console.print_json(json.dumps([r.as_json() for r in rows], ensure_ascii=False))
        return
    if not rows:
        where = say("cli.in_group", group=repr(one_line(group))) if group is not None else ""
        console.print(say("cli.no_match", where=where, store=store.name), markup=False)
        raise typer.Exit(int(Exit.FAILED) if group is not None else 0)
    title = say("cli.first_n", n=limit) if len(rows) == limit else None
    console.print(queue_table(rows, console.width, title))


def _signature_of(store: Store, given: str, replays: bool) -> str:
    """A group's signature from its id (as `--groups` shows it) or from the signature itself; one line and
    exit 1 when the store has no such group."""
    found = store.groups.failure_groups(limit=None, replays=replays)
    for g in found:
        if given in (g.id, g.signature):
            return g.signature
    fail(say("cli.no_group", group=repr(one_line(given)), store=store.name), Exit.FAILED)


def _groups(store: Store, severity: Severity | None, limit: int, replays: bool, as_json: bool) -> None:
    found = store.groups.failure_groups(severity, limit, replays)
    if as_json:
        console.print_json(json.dumps([g.as_json() for g in found], ensure_ascii=False))
        return
    if not found:
        console.print(say("cli.no_match", where="", store=store.name), markup=False)
        return
    from filon.miner.store.signature import OK

    # no rule flagged and nobody filed an incident: no failure to show
    failures = [g for g in found if g.signature.split(" · ", 1)[0] != OK or g.priority == 0]
    if not failures:
        console.print(say("cli.no_failure_group", n=len(found)), markup=False)
        return
    console.print(groups_table(failures, console.width), soft_wrap=False)  # the signature wraps on its words
    if len(failures) < len(found):
        console.print(say("cli.groups_left_out", n=len(found) - len(failures)), markup=False)
    console.print(say("cli.groups_next"), markup=False)


@traces_app.command("show")
def traces_show(
    conversation_id: ConversationArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the conversation as JSON.")] = False,
    lang: Annotated[
        str, typer.Option("--lang", help="The flags' reasons in en (the store's, the default) or fr.")
    ] = "en",
) -> None:
    """One conversation turn by turn: messages, tools with arguments and results, flags with reasons.

    Example: filon traces show whatsapp:33999162291 --lang fr
    """
    from filon.miner.core.messages import LANGS
    from filon.miner.rules.flags import not_evaluated

    if lang not in LANGS:
        fail(say("cli.bad_lang", value=repr(lang)), Exit.USAGE)

    try:
        config = FlagConfig.load()
    except ValueError as exc:
        fail(exc, Exit.USAGE)
    store = open_store()
    found = store.traces.conversation_detail(conversation_id)
    if found is None:
        no_conversation(store, conversation_id)
    conv, turns, flags = found
    unknown = not_evaluated(turns, config)
    doc = _shown_json(conv.id, conv.channel, turns, flags, unknown, lang)
    if as_json:
        console.print_json(json.dumps(doc, ensure_ascii=False))
        return
    console.print(render.title(conv.id, conv.channel, len(turns)))
    for f in flags:
        console.print(
            Text("  ").append_text(render.flag_line(f.kind, f.cause, f.severity, f.turn, f.say(lang)))
        )
    for i, t in enumerate(turns, 1):
        console.rule(render.turn_head(i, t.latency_ms, t.input_tokens, t.output_tokens))
        if not t.captured:
            console.print(render.not_captured())
        else:
            console.print(render.client(t.user))
        for call in t.tools:
            for part in render.tool_summary(call):
                console.print(Text("  ").append_text(part))
        if t.captured:
            console.print(render.agent(t.agent))
        if t.escalated:
            console.print(Text("  ").append_text(render.escalated()))
        for _, rule, why in (u for u in unknown if u[0] == i - 1):
            console.print(Text("  ").append_text(render.not_evaluated(rule, why.render(lang))))


def _shown_json(
    cid: str,
    channel: str,
    turns: list[Turn],
    flags: list[Flag],
    unknown: list[tuple[int, str, Said]],
    lang: str,
) -> dict[str, Any]:
    """`traces show --json`: the conversation, its flags with their reasons in `lang` and their codes."""
    return {
        "conversation_id": cid,
        "channel": channel,
        "flags": [
            {
                "kind": f.kind,
                "cause": f.cause,
                "severity": f.severity,
                "turn": f.turn,
                "reason": f.say(lang),
                "reason_code": f.said.model_dump(mode="json") if f.said else None,  # None: a person's note
            }
            for f in flags
        ],
        "not_evaluated": [{"turn": i, "rule": rule, "reason": why.render(lang)} for i, rule, why in unknown],
        "turns": [
            {
                "trace_id": t.trace_id,
                "user": t.user,
                "agent": t.agent,
                "captured": t.captured,
                "tools": [c.as_json() for c in t.tools],
                "escalated": t.escalated,
                "latency_ms": round(t.latency_ms, 1),
                "input_tokens": t.input_tokens,
                "output_tokens": t.output_tokens,
            }
            for t in turns
        ],
    }


@incident_app.command("add")
def incident_add(
    conversation_id: ConversationArg,
    note: Annotated[str, typer.Option("--note", help="What happened, for the reviewer.")],
) -> None:
    """Mark a conversation as an incident: it goes to the top of the review queue. Twice is once (the
    note is updated); `filon incident remove` unmarks it.

    Example: filon incident add web:traffic-2-28 --note "another's order shown"
    """
    if not note.strip():
        fail(say("cli.say_what"))
    store = open_store()
    if not store.incidents.add_incident(conversation_id, note.strip()):
        no_conversation(store, conversation_id)
    console.print(say("cli.incident_recorded", id=conversation_id), markup=False)


@incident_app.command("remove")
def incident_remove(conversation_id: ConversationArg) -> None:
    """Unmark an incident: the conversation goes back to its place in the queue.

    Example: filon incident remove web:traffic-2-28
    """
    store = open_store()
    done = store.incidents.remove_incident(conversation_id)
    if done is None:
        no_conversation(store, conversation_id)
    if not done:
        fail(say("cli.not_an_incident", id=conversation_id), Exit.FAILED)
    console.print(say("cli.incident_removed", id=conversation_id), markup=False)
