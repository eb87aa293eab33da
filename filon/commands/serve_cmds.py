"""`filon serve`: the OTLP/HTTP receiver; `filon db stats|prune`: the store's size and retention."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import EscalationOpt, Exit, console, duration, err_console, fail, say

if TYPE_CHECKING:
    from filon.tracing.limits import Limits

db_app = typer.Typer(help="The store: its size, and retention.", no_args_is_help=True)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback unless told otherwise).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (4318 is OTLP/HTTP's).")] = 4318,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="Require 'Authorization: Bearer TOKEN' (better: FILON_TOKEN or --token-file, unseen by ps).",
        ),
    ] = None,
    token_file: Annotated[
        Path | None, typer.Option("--token-file", help="Read the bearer token from this file.")
    ] = None,
    insecure_no_token: Annotated[
        bool,
        typer.Option(
            "--insecure-no-token", help="Listen beyond loopback without a token (anyone may write)."
        ),
    ] = False,
    escalation_tool: EscalationOpt = None,
    max_body: Annotated[
        int, typer.Option("--max-body", help="Largest accepted body, in bytes (after gzip too).")
    ] = 16 * 1024 * 1024,
    max_connections: Annotated[
        int, typer.Option("--max-connections", help="Connections at once; beyond, 503.")
    ] = 512,
    max_bodies: Annotated[
        int, typer.Option("--max-bodies", help="Bodies received at once; beyond, 503 + Retry-After.")
    ] = 64,
    max_buffered: Annotated[
        int,
        typer.Option("--max-buffered", help="Bytes all bodies may hold at once; beyond, 503 + Retry-After."),
    ] = 256 * 1024 * 1024,
    header_timeout: Annotated[
        float, typer.Option("--header-timeout", help="Seconds for a request's headers; then 408, closed.")
    ] = 10.0,
    body_timeout: Annotated[
        float, typer.Option("--body-timeout", help="Seconds for a whole body after its headers; then 408.")
    ] = 60.0,
    defer: Annotated[
        bool,
        typer.Option(
            "--defer/--no-defer",
            help="Answer once spans are stored and redacted, and read turns and flags in a worker right "
            "after (the default; `filon db stats` shows what waits). --no-defer flags before answering.",
        ),
    ] = True,
) -> None:
    """Receive OTLP/HTTP traces (protobuf or JSON, gzip or not) at POST /v1/traces into the store.

    A 200 means the spans are committed and redacted. Their turns are read and flagged by a worker right
    after (--no-defer: before the 200). Point a Collector's otlphttp exporter or any OTLP SDK at it.

    Example: FILON_TOKEN=$(openssl rand -hex 16) filon serve --port 4318
    Example: filon serve --host 0.0.0.0 --token-file /run/secrets/filon-token
    Example: filon serve --max-bodies 16 --max-buffered 134217728
    """
    import uvicorn

    from filon.miner.store import Store, StoreError
    from filon.tracing.limits import server_config
    from filon.tracing.receiver import ReceiverSettings, build_app

    if max_body < 1024:
        fail(say("cli.max_body"))
    limits = _limits(max_body, max_connections, max_bodies, max_buffered, header_timeout, body_timeout)
    token = _token(token, token_file)
    loopback = host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")
    if not loopback and not token and not insecure_no_token:
        fail(say("cli.token_required", host=host))
    try:
        Store.open().close()  # a wrong FILON_DB fails now, in one line, not at the first request
    except StoreError as exc:
        fail(exc, Exit.FAILED)
    try:  # bound here, before anything is printed: a port already taken is one line, not uvicorn's trace
        sock = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        fail(say("cli.cannot_listen", host=host, port=port, why=exc.strerror or exc), Exit.FAILED)
    app = build_app(
        ReceiverSettings(
            token=token, max_body=max_body, escalation_tools=escalation_tool, limits=limits, defer=defer
        )
    )
    console.print(say("cli.serving", host=host, port=port, token=say("cli.token_on") if token else ""))

    _log_to_stderr()
    import gc

    # what is loaded by now lives as long as the process: out of the collector's full passes, the first
    # of which, over every module's objects, stalled the first requests for 70 ms (its writer does the same)
    gc.freeze()
    server = uvicorn.Server(server_config(app, limits, log_level="warning", access_log=False))
    server.run(sockets=[sock])


def _limits(
    max_body: int, max_connections: int, max_bodies: int, max_buffered: int, header: float, body: float
) -> Limits:
    """The receiver's limits, each checked: one line naming the option that is wrong."""
    from filon.tracing.limits import Limits

    for name, value in (("--max-connections", max_connections), ("--max-bodies", max_bodies)):
        if value < 1:
            fail(say("cli.at_least_one", option=name))
    if max_buffered < max_body:
        fail(say("cli.max_buffered", bytes=max_body))
    for name, seconds in (("--header-timeout", header), ("--body-timeout", body)):
        if not seconds > 0:
            fail(say("cli.seconds", option=name))
    return Limits(max_connections, max_bodies, max_buffered, header, body)


def _token(token: str | None, token_file: Path | None) -> str | None:
    """The token senders must give: --token-file, else --token (said to be visible), else FILON_TOKEN."""
    from filon.commands.serve_token import read_token_file, token_problem
    from filon.miner.settings import SettingsError, settings

    token_given = token is not None
    if token is not None:  # accepted, and said: every local user's `ps` shows it
        err_console.print(say("cli.token_visible"), markup=False)
    if token is None:
        try:
            token = settings().token
        except SettingsError as exc:
            fail(exc)
    if token_file is not None:
        try:
            token, warnings = read_token_file(token_file)
        except ValueError as exc:
            fail(exc)
        for warning in warnings:
            err_console.print(warning, markup=False)
    elif token is not None:  # "  " would be a token anyone can send; "é" one no client can
        problem = token_problem(token, "--token" if token_given else "FILON_TOKEN")
        if problem is not None:
            fail(problem)
    return token


def _log_to_stderr() -> None:
    """The receiver's log: what it reads (stacks, content not captured, escalation tools), on stderr;
    what it quotes of a request is the sender's text, made safe."""
    logging.basicConfig(level=logging.WARNING, format="filon serve: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_untrusted_record)
    logging.getLogger("filon.tracing.receiver").setLevel(logging.INFO)


@db_app.command("stats")
def stats() -> None:
    """Counts of conversations, turns, spans, flags, cases made, eval runs; flags by kind.

    Example: filon db stats
    """
    from filon.commands.traces_cmds import open_store

    for key, value in open_store().stats().lines():
        console.print(say("cli.stat", key=key, value=value), markup=False)  # labels and values: sentences


@db_app.command("prune")
def prune(
    older_than: Annotated[str, typer.Option("--older-than", help="Age, e.g. 30d, 12h, 90m.")] = "30d",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count, delete nothing.")] = False,
) -> None:
    """Delete old unflagged conversations (and their turns and spans), and old spans no reader could read;
    never a conversation a case was made from.

    Example: filon db prune --older-than 30d --dry-run
    """
    from filon.commands.traces_cmds import open_store

    age = duration(older_than, "--older-than")
    removed = open_store().prune(age, dry_run)
    counts = {k: removed[k] for k in ("conversations", "turns", "spans")}
    console.print(say("cli.would_delete" if dry_run else "cli.deleted", **counts), markup=False)


def _untrusted_record(record: logging.LogRecord) -> bool:
    """A log line quoting trace text (a tool's name, a stack's key) with its control characters made
    visible: the receiver's log is a terminal too."""
    from filon.miner.core.untrusted import one_line

    record.msg, record.args = one_line(record.getMessage()), None
    return True
