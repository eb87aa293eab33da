"""The agent a gate replays: the reference agent, a Python callable, or an HTTP endpoint (docs/gate-your-agent.md,
"Gate your own agent"). Each says one thing per turn, the answer; the facts (tools, escalation, latency, tokens)
always come from the spans the target emits, read by `tracing.grouping.turn_of` like any trace.

- `filon`: the reference agent, a fresh shop per case built from the case's fixtures.
- `python:MODULE:ATTR`: `ATTR(conversation_id, message, *, canal, tel) -> str`; `setup(fixtures)` of the
  same module, when it has one, once per case before its first turn. filon's tracer provider is
  installed before the module is imported, so the spans it emits through the OpenTelemetry API reach the
  runner's collector (the turn runs inside the runner's span).
- `http://…`: `goldens.run.http_target`.

A case whose fixtures the target cannot apply raises `NotRunnable`: reported apart, never a failure nor
an infrastructure error. A target that fails raises `TargetError` with a one-line cause: infrastructure.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from filon.goldens.case.schema import Case
from filon.miner.core.messages import Refusal, SaidError, said

if TYPE_CHECKING:
    from filon.agent import Conversation, SupportService
    from filon.agent.model import Backend
    from filon.agent.prompts import Prompt
    from filon.tracing.records import SpanRecord


class NotRunnable(SaidError):
    """This target cannot apply the case's fixtures; the message says why."""


class TargetError(SaidError):
    """The target failed (down, an error, a timeout, no spans): an infrastructure error, one line."""


@dataclass
class AgentState:
    """The reference agent's own, for one attempt: its service (a fresh shop) and the conversation."""

    service: SupportService
    conversation: Conversation


@dataclass
class Session:
    """One attempt of one case on a target."""

    case: Case
    conversation_id: str
    turn: int = 0  # the number of turns sent so far
    state: AgentState | None = None  # the reference agent's, for this attempt; other targets keep none


class Target(Protocol):
    name: str

    def begin(self, session: Session) -> None:
        """Before the case's first turn: apply its fixtures, or raise `NotRunnable`."""

    def send(self, session: Session, message: str) -> str:
        """One user turn; the answer. Runs inside the runner's span of the turn."""


@runtime_checkable
class ReportsState(Protocol):
    """A target that can say its shop after a conversation (`etat_final`): the reference agent, a Python
    target whose module has `etat()`."""

    def reports_state(self) -> bool: ...

    def final_state(self, session: Session) -> dict[str, Any]: ...


@runtime_checkable
class ForwardsSpans(Protocol):
    """A target whose spans reach filon out of this process (HTTP, through the runner's OTLP receiver):
    the turn's spans are taken from it, not from the in-process collector."""

    def spans(self, session: Session) -> list[SpanRecord]: ...


def parse_target(spec: str | None) -> str:
    """The target's spec, checked: `filon`, `python:MODULE:ATTR` or `http(s)://…`; `ValueError` naming it."""
    spec = (spec or "filon").strip()
    if spec == "filon" or spec.startswith(("http://", "https://")):
        return spec
    if spec.startswith("python:") and len(spec.split(":")) == 3 and all(spec.split(":")[1:]):
        return spec
    raise Refusal(said("err.target.spec", spec=repr(spec)))


class ReferenceTarget:
    """filon's own agent, in this process: a fresh shop per attempt, from the case's fixtures."""

    name = "filon"

    def __init__(self, backend: Backend, prompt: Prompt) -> None:
        self.backend, self.prompt = backend, prompt

    def begin(self, session: Session) -> None:
        from filon.agent import Conversation, SupportService
        from filon.agent.shop import new_shop

        case = session.case
        service = SupportService(
            self.backend.client, self.backend.model, self.prompt, shop=new_shop(case.fixtures)
        )
        if case.canal == "whatsapp" and case.tel:
            conversation = Conversation.whatsapp(case.tel)
        else:
            conversation = Conversation.web(session.conversation_id)
        session.state = AgentState(service, conversation)

    def send(self, session: Session, message: str) -> str:
        assert session.state is not None, "begin() comes before send()"
        return str(session.state.service.repondre(session.state.conversation, message).texte)

    def reports_state(self) -> bool:
        return True

    def final_state(self, session: Session) -> dict[str, Any]:
        """The attempt's shop after the conversation (`etat_final`)."""
        assert session.state is not None, "begin() comes before final_state()"
        return dict(session.state.service.shop.etat())


class PythonTarget:
    """A callable of the user's, imported after filon's tracing is installed."""

    def __init__(self, spec: str) -> None:
        _, module_name, attr = spec.split(":")
        self.name = spec
        # a module of the user's project: from the current folder, and from the project's root (the folder
        # of its filon.toml) when filon is run from one of its sub-folders
        from filon.miner.places import project_folder

        looked = list(dict.fromkeys(str(p) for p in (Path.cwd(), project_folder()) if p is not None))
        for folder in reversed(looked):
            if folder not in sys.path:
                sys.path.insert(0, folder)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            where = " and ".join(looked)
            raise Refusal(
                said("err.target.no_module", spec=spec, module=repr(exc.name or module_name), where=where)
            ) from exc
        except Exception as exc:
            raise Refusal(
                said(
                    "err.target.import", spec=spec, module=module_name, kind=type(exc).__name__, why=str(exc)
                )
            ) from exc
        found = getattr(module, attr, None)
        if not callable(found):
            raise Refusal(said("err.target.no_callable", spec=spec, module=module_name, attr=repr(attr)))
        self.answer: Callable[..., Any] = found
        setup = getattr(module, "setup", None)
        self.setup: Callable[[dict[str, Any]], Any] | None = setup if callable(setup) else None
        if self.setup is not None and len(inspect.signature(self.setup).parameters) != 1:
            raise Refusal(said("err.target.setup", spec=spec))
        etat = getattr(module, "etat", None)
        self.etat: Callable[[], Any] | None = etat if callable(etat) else None

    def begin(self, session: Session) -> None:
        fixtures = session.case.fixtures
        if self.setup is None:
            if fixtures:
                raise NotRunnable(said("target.no_setup", target=self.name))
            return
        try:
            self.setup(dict(fixtures or {}))
        except Exception as exc:
            raise TargetError(
                said("target.setup_failed", kind=type(exc).__name__, detail=str(exc)[:200])
            ) from exc

    def reports_state(self) -> bool:
        return self.etat is not None

    def final_state(self, session: Session) -> dict[str, Any]:
        """The module's `etat()`: the user's shop after the conversation, for `etat_final`."""
        if self.etat is None:
            raise NotRunnable(said("target.no_etat", target=self.name))
        try:
            found = self.etat()
        except Exception as exc:
            raise TargetError(
                said("target.etat_failed", kind=type(exc).__name__, detail=str(exc)[:200])
            ) from exc
        if not isinstance(found, dict):
            raise TargetError(said("target.etat_not_dict", kind=type(found).__name__))
        return found

    def send(self, session: Session, message: str) -> str:
        case = session.case
        try:
            said = self.answer(session.conversation_id, message, canal=case.canal, tel=case.tel)
        except Exception as exc:
            raise TargetError(said("target.raised", kind=type(exc).__name__, why=str(exc)[:200])) from exc
        return str(said or "")


@contextmanager
def open_target(spec: str, otlp_port: int = 4318, span_timeout: float = 10.0) -> Iterator[Target]:
    """The target of a spec other than `filon`, ready; closed (an HTTP target's receiver stopped) after."""
    if spec.startswith("python:"):
        from filon.tracing.setup import ensure_tracing

        ensure_tracing()  # before the user's module is imported: its spans go through filon's provider
        yield PythonTarget(spec)
        return
    from filon.goldens.run.http_target import HttpTarget

    target = HttpTarget(spec, otlp_port, span_timeout)
    try:
        yield target
    finally:
        target.close()
