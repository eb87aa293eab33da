"""`filon serve`: OTLP/HTTP `POST /v1/traces` into the one ingest path, on a real ASGI server.

A 200 is sent only once the request's spans are committed: a receiver killed right after answering has
lost nothing. Throughput comes from group commits: one writer thread takes every request waiting and
stores them in one transaction, so concurrent clients share a commit instead of queueing for one each.
When the store cannot take writes the answer is 503 with Retry-After, so a Collector retries; a
malformed body is 400 and nothing of it is stored; a span that does not decode is skipped and reported
in `partial_success`, the rest stored.
"""

from __future__ import annotations

import asyncio
import gzip
import hmac
import json
import logging
import queue
import threading
import zlib
from collections.abc import AsyncIterator
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from filon.miner.core.messages import said
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store, db_url
from filon.tracing.ingest import Ingestor, replaying
from filon.tracing.isolate import Outcome, store_requests
from filon.tracing.limits import BodyBudget, Limits, OverBudget
from filon.tracing.otlp_json import from_json
from filon.tracing.records import DecodeError, SpanRecord, from_protobuf
from filon.tracing.redact import Redactor, redaction_secret
from filon.tracing.settle import Settler, accept
from filon.tracing.store_writer import HelperCommitter, StoreUnavailable
from filon.tracing.summary import Announcer
from filon.tracing.wire import helper_settings, offload_enabled

log = logging.getLogger(__name__)
PROTOBUF = "application/x-protobuf"
JSON = "application/json"
MAX_GROUP_SPANS = 20_000


@dataclass
class ReceiverSettings:
    db: str | None = None
    token: str | None = None
    max_body: int = 16 * 1024 * 1024
    escalation_tools: list[str] | None = None
    redact: bool | None = None
    retry_after_s: int = 5
    offload: bool | None = None  # store in filon's helper process (FILON_OFFLOAD, on by default)
    defer: bool = False  # answer once stored and redacted; read and flag in a worker after (`tracing.settle`)
    limits: Limits = field(default_factory=Limits)  # connections, time and memory (`tracing.limits`)


@dataclass
class _Job:
    records: list[SpanRecord]
    done: Future[Outcome] = field(default_factory=Future)


class GroupCommitter:
    """One writer thread: every request waiting is stored in one transaction (a group commit). The
    receiver's writer when FILON_OFFLOAD is off; otherwise `HelperCommitter` does the same in filon's
    helper process."""

    def __init__(self, factory: Any, defer: bool = False) -> None:
        self._factory = factory
        self._defer = defer
        self.settler: Settler | None = None  # with `defer`: the worker reading what was stored
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="filon-receiver-writer", daemon=True)
        self._thread.start()

    def submit(self, records: list[SpanRecord]) -> Future[Outcome]:
        job = _Job(records)
        self._queue.put(job)
        return job.done

    def _run(self) -> None:
        ingestor: Ingestor | None = None
        while True:
            first = self._queue.get()
            if first is None:
                return
            jobs, spans = [first], len(first.records)
            while spans < MAX_GROUP_SPANS:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                jobs.append(more)
                spans += len(more.records)
            try:
                ingestor = ingestor or self._factory()
            except Exception as exc:  # the store cannot be opened: every request waiting is retried
                log.warning("store unavailable for %d request(s): %s", len(jobs), exc)
                for job in jobs:
                    job.done.set_result(Outcome(down=str(exc)[:300]))
                continue
            step = partial(replaying, partial(accept, ingestor) if self._defer else ingestor.ingest)
            outcomes = store_requests(step, [job.records for job in jobs])
            if any(o.down for o in outcomes):
                ingestor = None  # opened again for the next group
            elif self._defer:
                self.settler = self.settler or Settler(ingestor)
                self.settler.wake()
            for job, outcome in zip(jobs, outcomes, strict=True):
                job.done.set_result(outcome)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        if self.settler is not None:  # what was stored is read before the receiver ends
            self.settler.close()


def _decompress(body: bytes, limit: int) -> bytes:
    """A gzip body, every member of it (a sender may concatenate several, as `cat a.gz b.gz` does), never
    more than `limit` bytes inflated: `OverflowError` past it (a bomb), `DecodeError` for a truncated one."""
    out = bytearray()
    rest = body
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out += d.decompress(rest, limit + 1 - len(out))
        if len(out) > limit or d.unconsumed_tail:
            raise OverflowError
        if not d.eof:
            raise DecodeError(said("err.decode.truncated_gzip"))
        rest = d.unused_data
        if not rest.strip(b"\0"):  # the end, or the zero padding some writers leave after the last member
            return bytes(out)


def problem(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """An error answer, the connection closed after it: many are sent before the body is read, and a
    connection kept alive would go on reading (and discarding) what a slow sender trickles, past every
    timeout."""
    headers = {**(headers or {}), "Connection": "close"}
    return JSONResponse({"code": status, "message": message}, status_code=status, headers=headers)


def _refused(request: Request, settings: ReceiverSettings) -> Response | None:
    """The checks made before reading the body: the token (in constant time), the type, the size."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    expected = settings.token.encode() if settings.token else b""
    if settings.token and not (  # the scheme in any case (RFC 9110), the token compared in constant time
        scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected)
    ):
        return problem(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind not in (PROTOBUF, JSON):
        return problem(415, f"unsupported content type {kind!r}: send {PROTOBUF} or {JSON}")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > settings.max_body:
        return problem(413, f"body over {settings.max_body} bytes")
    return None


def _decode(
    raw: bytes, kind: str, encoding: str, max_body: int, rejected: list[str], notes: list[str]
) -> list[SpanRecord]:
    """The body's spans (gunzipped within `max_body`); the spans it had to reject go into `rejected`,
    what it had to make safe (a time clamped) into `notes`."""
    if encoding == "gzip":
        raw = _decompress(raw, max_body)
    if kind == PROTOBUF:
        return from_protobuf(raw, rejected, notes)
    return from_json(json.loads(raw.decode("utf-8")), rejected, notes)


class Committer(Protocol):
    """Where a receiver's spans are committed: in filon's helper process (`HelperCommitter`) or a writer
    thread (`GroupCommitter`); either runs `Ingestor.ingest`, the one ingest path."""

    def submit(self, records: list[SpanRecord]) -> Future[Outcome]: ...

    def close(self) -> None: ...


def _answer(kind: str, rejected: list[str], notes: list[str]) -> Response:
    """OTLP's success response, with the spans it had to reject (or, none rejected, the values it made
    safe: OTLP's warnings), in the request's encoding."""
    msg = ExportTraceServiceResponse()
    if rejected:
        msg.partial_success.rejected_spans = len(rejected)
        msg.partial_success.error_message = f"{len(rejected)} span(s) rejected; first: {rejected[0]}"
    elif notes:
        msg.partial_success.error_message = "; ".join(notes)[:1000]
    if kind == PROTOBUF:
        return Response(msg.SerializeToString(), media_type=PROTOBUF)
    return JSONResponse(MessageToDict(msg))


class Receiver:
    """The two routes over one committer and one store (one engine, one pool)."""

    def __init__(self, settings: ReceiverSettings) -> None:
        self.settings = settings
        self.budget = BodyBudget(settings.limits.max_bodies, settings.limits.max_buffered)
        config = FlagConfig.load(escalation_tools=settings.escalation_tools)
        secret = redaction_secret(settings.redact)
        redactor = Redactor(secret, config.test_identities) if secret is not None else None
        self._store: Store | None = None
        self.announcer = Announcer()
        self.writer: Committer
        if offload_enabled() if settings.offload is None else settings.offload:
            more = {"defer": True} if settings.defer else {}
            self.writer = HelperCommitter(*helper_settings(db_url(settings.db), config, secret, **more))
        else:
            self.writer = GroupCommitter(lambda: Ingestor(self.store(), config, redactor), settings.defer)

    def store(self) -> Store:
        if self._store is None:  # raises while the database is unreachable: 503, retried
            self._store = Store.open(self.settings.db)
        return self._store

    async def traces(self, request: Request) -> Response:
        settings = self.settings
        refused = _refused(request, settings)
        if refused is not None:
            return refused
        declared = request.headers.get("content-length", "")
        reserved = min(int(declared), settings.max_body) if declared.isdigit() else 0
        try:
            self.budget.enter(reserved)
        except OverBudget as exc:
            retry = {"Retry-After": str(settings.retry_after_s)}
            return problem(503, f"the receiver is busy: {exc}; retry", retry)
        held = [reserved]
        try:
            return await self._received(request, held)
        finally:
            self.budget.leave(held[0])

    async def _received(self, request: Request, held: list[int]) -> Response:
        """The request's body, read within the body timeout and the budget, then decoded and stored."""
        settings = self.settings
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        body = bytearray()
        try:
            async with asyncio.timeout(settings.limits.body_timeout_s):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > settings.max_body:
                        return problem(413, f"body over {settings.max_body} bytes")
                    if len(body) > held[0]:
                        self.budget.grow(len(body) - held[0])
                        held[0] = len(body)
        except ClientDisconnect:  # the sender went away mid-body: nothing to store, nobody to answer
            return Response(status_code=400)
        except TimeoutError:
            timeout = settings.limits.body_timeout_s
            return problem(408, f"body not received within {timeout:g} s")
        except OverBudget as exc:
            retry = {"Retry-After": str(settings.retry_after_s)}
            return problem(503, f"the receiver is busy: {exc}; retry", retry)
        encoding = request.headers.get("content-encoding", "").lower()
        if encoding not in ("", "identity", "gzip"):
            return problem(415, f"unsupported content encoding {encoding!r}")
        rejected: list[str] = []
        notes: list[str] = []
        try:  # decoding is CPU work: a thread of the pool, never the event loop
            records = await asyncio.to_thread(
                _decode, bytes(body), kind, encoding, settings.max_body, rejected, notes
            )
        except OverflowError:
            return problem(413, f"decompressed body over {settings.max_body} bytes")
        except (DecodeError, ValueError, RecursionError, zlib.error, gzip.BadGzipFile) as exc:
            return problem(400, f"malformed {kind} body: {str(exc)[:300]}")
        sent = len(records) + len(rejected)
        if records:
            try:
                outcome = await asyncio.wrap_future(self.writer.submit(records))
            except StoreUnavailable as exc:
                outcome = Outcome(down=str(exc))
            if outcome.down is not None:
                retry = {"Retry-After": str(settings.retry_after_s)}
                return problem(503, "the store cannot take writes now; retry", retry)
            rejected += outcome.rejected
            notes += outcome.notes
            for line in self.announcer.news(outcome.stats):
                log.info("%s", line)
        if (
            rejected and len(rejected) == sent
        ):  # nothing of it could be stored: the sender's error (OTLP: 400)
            return problem(400, f"every span rejected ({sent}); first: {rejected[0]}"[:600])
        return _answer(kind, rejected, notes)

    async def health(self, request: Request) -> Response:
        if isinstance(self.writer, HelperCommitter) and not self.writer.ready.is_set():
            return problem(503, "the writer process is starting", {"Retry-After": "1"})

        try:  # one read that proves the store answers, and says the queue's lag (`tracing.settle`)
            count, oldest = await asyncio.to_thread(lambda: self.store().waiting())  # never on the loop
        except Exception as exc:
            retry = {"Retry-After": str(self.settings.retry_after_s)}
            return problem(503, f"store unreachable: {str(exc)[:200]}", retry)
        waiting = {"traces": count, "oldest_s": round(oldest, 1)}
        return JSONResponse({"status": "ok", "receiving": self.budget.as_json(), "waiting": waiting})


def build_app(settings: ReceiverSettings | None = None) -> Starlette:
    receiver = Receiver(settings or ReceiverSettings())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        receiver.writer.close()

    routes = [
        Route("/v1/traces", receiver.traces, methods=["POST"]),
        Route("/health", receiver.health, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.writer = receiver.writer
    return app
