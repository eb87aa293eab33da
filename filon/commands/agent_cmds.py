"""`filon ask` and `filon chat`: talk to the support agent, on Gemini or on the scripted stand-in."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import httpx
import typer
from rich.text import Text

from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.agent.service import Conversation, Reponse, SupportService
    from filon.miner.core.transcript import Transcript

from filon.commands.common import (
    BackendOpt,
    Exit,
    ModelOpt,
    ModelUrlOpt,
    PromptOpt,
    console,
    err_console,
    fail,
    say,
    told,
)


def _conversation(tel: str | None, session: str | None) -> Conversation:

    from filon.agent import Conversation

    if tel and session:
        fail(say("cli.tel_or_session"))
    return Conversation.whatsapp(tel) if tel else Conversation.web(session or "cli")


def ask(
    message: Annotated[
        str,
        typer.Argument(
            help="The customer's message (in the agent's language: French for the reference shop)."
        ),
    ],
    backend: BackendOpt = "gemini",
    tel: Annotated[
        str | None, typer.Option("--tel", help="WhatsApp sender number (keys the memory).")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="Web session id (keys the memory).")
    ] = None,
    prompt: PromptOpt = None,
    model: ModelOpt = None,
    model_url: ModelUrlOpt = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='Print {"texte", "outils", "escalade", "tours"}: "tours" has each call with its arguments and result, from the spans.',
        ),
    ] = False,
    target: Annotated[
        str | None,
        typer.Option(
            "--target", help="Another agent: python:MODULE:ATTR or http://HOST:PORT/PATH (see filon eval)."
        ),
    ] = None,
    otlp_port: Annotated[
        int, typer.Option("--otlp-port", help="Where an HTTP target sends its spans.")
    ] = 4318,
) -> None:
    """One turn with the support agent, or with another agent (--target): its answer, and the tools and
    escalation read from its spans.

    Example: filon ask --backend scripted "Quels sont les frais de livraison ?"
    Example: filon ask --target python:desk:answer --session s1 "Où est PP-2001 ?"
    """
    target = target or _configured_target()
    if target and target != "filon":
        _ask_target(target, message, tel, session, as_json, otlp_port)
        return
    from filon.agent.model import MissingCredentials, open_backend
    from filon.agent.service import SupportService
    from filon.goldens.run.ask import traced_turn
    from filon.miner.core.transcript import Transcript

    conversation = _conversation(tel, session)
    try:
        with open_backend(backend, model, model_url) as b:
            if b.scripted:
                err_console.print(f"[yellow]{told(b.banner)}[/]")
            service = SupportService(b.client, b.model, prompt)
            turn = traced_turn(lambda: _answer(service, conversation, message).texte, message)
    except MissingCredentials as exc:
        fail(exc, Exit.INCONCLUSIVE)
    except (ValueError, FileNotFoundError) as exc:
        fail(exc)
    _print_turn(Transcript(turns=[turn]), as_json)


def _print_turn(said: Transcript, as_json: bool) -> None:
    """The answer, and what the spans say the agent did: `--json` with the turn's calls and arguments."""
    doc = {
        "texte": " ".join(said.answers),
        "outils": said.tool_names,
        "escalade": said.escalated,
        "tours": said.dump()["tours"],
    }
    if as_json:
        console.print_json(json.dumps(doc, ensure_ascii=False))
    else:
        console.print(doc["texte"], markup=False)
        tools = ", ".join(said.tool_names) or "-"
        escalated = say("cli.yes" if said.escalated else "cli.no")
        console.print(Text(say("cli.turn_done", tools=tools, escalated=escalated), style="dim"))


def _configured_target() -> str | None:
    """`target` in filon.toml / [tool.filon], as `filon eval` reads it."""

    try:
        return FlagConfig.load().target
    except ValueError as exc:
        fail(exc)


def _ask_target(
    target: str, message: str, tel: str | None, session: str | None, as_json: bool, port: int
) -> None:
    from filon.goldens.run.ask import ask_target
    from filon.goldens.run.targets import parse_target

    if tel and session:
        fail(say("cli.tel_or_session"))
    try:
        spec = parse_target(target)
        escalation = tuple(FlagConfig.load().escalation_tools)
        said = ask_target(
            spec, message, session or tel or "cli", "whatsapp" if tel else "web", tel, escalation, port
        )
    except ValueError as exc:
        fail(exc)
    except OSError as exc:
        fail(say("cli.option_problem", option=f"--otlp-port {port}", problem=exc.strerror or exc))
    if said.error or said.not_runnable:  # the report's words; a CLI message is English
        fail(
            say(
                "cli.target_failed", target=target, why=said.say(said.error or said.not_runnable or "", "en")
            ),
            Exit.INCONCLUSIVE,
        )
    _print_turn(said.transcript, as_json)


def _answer(service: SupportService, conversation: Conversation, message: str) -> Reponse:
    from google.genai import errors

    try:
        return service.repondre(conversation, message)
    except errors.APIError as exc:
        fail(
            say("cli.model_answered", code=exc.code, status=exc.status, message=exc.message),
            Exit.INCONCLUSIVE,
        )
    except httpx.HTTPError as exc:  # unreachable, refused, timed out: nothing was answered
        where = (
            getattr(getattr(exc, "request", None), "url", None)
            if isinstance(exc, httpx.RequestError)
            else None
        )
        at = say("cli.at_url", url=where) if where else ""
        fail(say("cli.cannot_reach_model", where=at, why=exc), Exit.INCONCLUSIVE)


def chat(
    backend: BackendOpt = "gemini",
    tel: Annotated[str | None, typer.Option("--tel", help="WhatsApp sender number.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Web session id.")] = None,
    prompt: PromptOpt = None,
    model: ModelOpt = None,
    model_url: ModelUrlOpt = None,
) -> None:
    """Talk to the agent interactively; an empty line or Ctrl-D ends the chat.

    Example: filon chat --backend scripted --tel 33600000103
    """
    from filon.agent.model import MissingCredentials, open_backend
    from filon.agent.service import SupportService

    conversation = _conversation(tel, session)
    try:
        with open_backend(backend, model, model_url) as b:
            console.print(Text(say("cli.chat_banner", banner=b.banner, id=conversation.id), style="dim"))
            service = SupportService(b.client, b.model, prompt)
            while True:
                try:
                    message = console.input("[bold]you> [/]").strip()
                except (EOFError, KeyboardInterrupt):
                    break
                if not message:
                    break
                reponse = _answer(service, conversation, message)
                console.print(Text.assemble(("agent> ", "bold green"), reponse.texte))
                said = say(
                    "cli.turn_done",
                    tools=", ".join(reponse.outils) or "-",
                    escalated=say("cli.yes" if reponse.escalade else "cli.no"),
                )
                console.print(Text("  " + said, style="dim"))
    except MissingCredentials as exc:
        fail(exc, Exit.INCONCLUSIVE)
    except (ValueError, FileNotFoundError) as exc:
        fail(exc)
