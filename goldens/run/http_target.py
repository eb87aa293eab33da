"""An agent behind HTTP as a gate's target (docs/gate-your-agent.md): one `POST` per user turn, its spans
received over OTLP/HTTP on loopback and matched to the attempt by conversation id.

The user starts the agent; filon never does. For each turn the runner posts
`{"conversation_id", "message", "canal", "tel"}` (plus `"fixtures"` on the first turn of a case that has
some; a 422 there makes the case not runnable) and reads `{"texte": …}` (or `{"text": …}`). The agent
exports its spans to `http://127.0.0.1:OTLP_PORT/v1/traces`; after the reply the runner waits for the
turn's root span, or for 0.5 s without a new span where a stack has none, up to the span timeout. The
answer's text is the reply's; every fact is read from the spans.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from filon.goldens.run.targets import NotRunnable, Session, TargetError
from filon.miner.core.messages import said
from filon.tracing.grouping import CONVERSATION_KEYS
from filon.tracing.otlp_json import from_json
from filon.tracing.records import DecodeError, SpanRecord, from_protobuf

QUIET_S = 0.5  # no new span for this long: a stack without a root span per turn is done


class SpanInbox:
    """Spans received, by trace; which traces belong to which conversation; which were handed out."""

    def __init__(self) -> None:
        self._traces: dict[str, list[SpanRecord]] = defaultdict(list)
        self._conversations: dict[str, set[str]] = defaultdict(set)
        self._taken: set[str] = set()
        self._last: dict[str, float] = {}  # conversation → when its last span came
        self._changed = threading.Condition()

    def add(self, records: list[SpanRecord]) -> None:
        with self._changed:
            for r in records:
                self._traces[r.trace_id].append(r)
                for key in CONVERSATION_KEYS:
                    value = r.attributes.get(key)
                    if value:
                        self._conversations[str(value)].add(r.trace_id)
                        break
            now = time.monotonic()
            for conversation, traces in self._conversations.items():
                if any(r.trace_id in traces for r in records):
                    self._last[conversation] = now
            self._changed.notify_all()

    def _ready(self, conversation: str) -> tuple[list[str], bool]:
        fresh = sorted(t for t in self._conversations.get(conversation, ()) if t not in self._taken)
        rooted = any(not s.parent_span_id for t in fresh for s in self._traces[t])
        return fresh, rooted

    def take(self, conversation: str, timeout: float) -> list[SpanRecord]:
        """The spans of this conversation's traces not handed out yet, once a root span is among them or
        no span came for `QUIET_S`; [] after `timeout` with none."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                fresh, rooted = self._ready(conversation)
                now = time.monotonic()
                quiet = fresh and now - self._last.get(conversation, now) >= QUIET_S
                if rooted or quiet or now >= deadline:
                    self._taken.update(fresh)
                    out = [s for t in fresh for s in self._traces.pop(t, [])]
                    return out
                wait = deadline - now if not fresh else min(QUIET_S, deadline - now)
                self._changed.wait(max(0.01, wait))


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0, a connection per export: a connection kept alive would outlive this receiver and hand a
    # later run's spans to it
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall
    server: _Receiver

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        if self.path.split("?", 1)[0] != "/v1/traces":
            self._answer(404, b"")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                body = gzip.decompress(body)
            kind = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
            records = from_json(json.loads(body)) if kind == "application/json" else from_protobuf(body)
        except (DecodeError, ValueError, OSError) as exc:
            self._answer(400, str(exc)[:200].encode())
            return
        self.server.inbox.add(records)
        self._answer(200, b"{}" if "json" in (self.headers.get("Content-Type") or "") else b"")

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Receiver(ThreadingHTTPServer):
    daemon_threads = True
    inbox: SpanInbox


class HttpTarget:
    """The user's agent at `url`, its spans received on `127.0.0.1:otlp_port`."""

    def __init__(
        self, url: str, otlp_port: int = 4318, span_timeout: float = 10.0, reply_timeout: float = 60.0
    ) -> None:
        self.name = url
        self.url = url
        self.span_timeout = span_timeout
        self.inbox = SpanInbox()
        self._server = _Receiver(("127.0.0.1", otlp_port), _Handler)  # OSError when the port is taken
        self._server.inbox = self.inbox
        self._thread = threading.Thread(target=self._server.serve_forever, name="filon-otlp", daemon=True)
        self._thread.start()
        self._client = httpx.Client(timeout=httpx.Timeout(reply_timeout, connect=5.0))

    @property
    def otlp_port(self) -> int:
        return int(self._server.server_address[1])

    def begin(self, session: Session) -> None:
        return  # fixtures go with the first turn

    def send(self, session: Session, message: str) -> str:
        case = session.case
        body: dict[str, Any] = {
            "conversation_id": session.conversation_id,
            "message": message,
            "canal": case.canal,
            "tel": case.tel,
        }
        if session.turn == 0 and case.fixtures:
            body["fixtures"] = case.fixtures
        try:
            reply = self._client.post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise TargetError(said("target.timeout", url=self.url)) from exc
        except httpx.TransportError as exc:
            raise TargetError(said("target.unreachable", url=self.url, reason=type(exc).__name__)) from exc
        if reply.status_code == 422 and "fixtures" in body:
            raise NotRunnable(said("target.refuses_fixtures", url=self.url))
        if reply.status_code != 200:
            raise TargetError(
                said("target.status", url=self.url, status=reply.status_code, body=reply.text[:120])
            )
        try:
            answered = reply.json()
        except ValueError as exc:
            raise TargetError(said("target.not_json", url=self.url)) from exc
        text = answered.get("texte", answered.get("text")) if isinstance(answered, dict) else None
        if not isinstance(text, str):
            raise TargetError(said("target.no_text", url=self.url))
        return text

    def spans(self, session: Session) -> list[SpanRecord]:
        found = self.inbox.take(session.conversation_id, self.span_timeout)
        if not found:
            raise TargetError(
                said(
                    "target.no_span",
                    conversation=session.conversation_id,
                    wait=self.span_timeout,
                    port=self.otlp_port,
                )
            )
        return found

    def close(self) -> None:
        self._client.close()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
