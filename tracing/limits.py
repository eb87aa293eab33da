"""What one client can hold of `filon serve`: connections, time, and memory, each bounded and settable.

A receiver reachable by many senders must not let a few of them exhaust it. Three bounds:
- **Connections**: at most `max_connections` at once (uvicorn's own limit: beyond it, 503).
- **Time**: the request line and headers must arrive within `header_timeout` seconds of the connection
  (or of the first byte of the next request on a kept-alive one), else the connection is answered 408
  and closed; a new connection that sends nothing is closed after as long (a kept-alive one that has
  had its answer, after uvicorn's keep-alive of 5 s). A body must arrive whole within `body_timeout`
  seconds of its headers, else 408. A request line and headers larger than `MAX_HEADER_BYTES`, counted
  as the parser reads them (a header still arriving counted by the reads that carry it): 431. Every
  error answer closes its connection.
- **Memory**: at most `max_bodies` bodies being received or decoded at once, holding at most
  `max_buffered` bytes between them (a declared length is reserved before reading, a chunked body as it
  grows). Over either: 503 with Retry-After, which an OTLP sender retries later.

The time bounds live in the HTTP protocol (`timed_protocol`, a subclass of uvicorn's httptools
protocol): before its headers are complete, a request is not yet the application's to see.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEADER_BYTES = 64 * 1024


@dataclass
class Limits:
    max_connections: int = 512
    max_bodies: int = 64
    max_buffered: int = 256 * 1024 * 1024
    header_timeout_s: float = 10.0
    body_timeout_s: float = 60.0


class OverBudget(Exception):
    """Receiving this body now would pass the cap on bodies or on buffered bytes."""


class BodyBudget:
    """The bodies in flight and the bytes they hold, shared by every request of the receiver."""

    def __init__(self, max_bodies: int, max_bytes: int) -> None:
        self.max_bodies, self.max_bytes = max_bodies, max_bytes
        self.bodies = 0
        self.bytes = 0
        self._lock = threading.Lock()

    def enter(self, declared: int) -> None:
        """One more body, with `declared` bytes reserved (0 when the length is not given)."""
        with self._lock:
            if self.bodies >= self.max_bodies:
                raise OverBudget(f"{self.bodies} bodies already being received (--max-bodies)")
            if self.bytes + declared > self.max_bytes:
                raise OverBudget(f"{self.bytes} bytes already held by bodies (--max-buffered)")
            self.bodies += 1
            self.bytes += declared

    def grow(self, more: int) -> None:
        """`more` bytes beyond what the body reserved (a chunked body, or one longer than declared)."""
        with self._lock:
            if self.bytes + more > self.max_bytes:
                raise OverBudget(f"{self.bytes} bytes already held by bodies (--max-buffered)")
            self.bytes += more

    def leave(self, held: int) -> None:
        with self._lock:
            self.bodies -= 1
            self.bytes -= held

    def as_json(self) -> dict[str, int]:
        with self._lock:
            return {"bodies": self.bodies, "buffered_bytes": self.bytes}


class TimedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with each request's line and headers due within `header_timeout_s`
    and bounded to `MAX_HEADER_BYTES`."""

    header_timeout_s = 10.0
    _header_timer: asyncio.TimerHandle | None = None
    _header_bytes = 0  # the request line and headers the parser has read, this request
    _raw_header_bytes = 0  # the reads that were headers only, this request
    _in_headers = True
    _refused = False
    _completed = 0  # requests whose headers the parser completed on this connection

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._in_headers, self._header_bytes, self._raw_header_bytes = True, 0, 0
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        self._in_headers = False
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self._refuse(408, "request headers not received in time")

    def _refuse(self, status: int, reason: str) -> None:
        body = reason.encode()
        head = f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain\r\nconnection: close\r\n"
        self.transport.write(head.encode() + f"content-length: {len(body)}\r\n\r\n".encode() + body)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        before, completed = self._in_headers, self._completed
        super().data_received(data)
        if before and self._completed == completed and not self.transport.is_closing():
            # a read in which no headers were completed is all request line and headers, what the
            # parser holds of a header not finished yet included (a value sent a byte at a time)
            self._raw_header_bytes += len(data)
            if self._raw_header_bytes > MAX_HEADER_BYTES:
                self._too_large()

    def _too_large(self) -> None:
        self._disarm()
        if not self._refused:
            self._refused = True
            self._refuse(431, "request headers too large")

    def _count(self, size: int) -> None:
        self._header_bytes += size
        if self._header_bytes > MAX_HEADER_BYTES:
            self._too_large()
            raise OverBudget("request headers too large")  # stops the parser: nothing more is read

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # the parser's error after a 431 already sent: nothing more to say
            super().send_400_response(msg)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_headers:  # the next request on a kept-alive connection: its own deadline
            self._arm()

    def on_headers_complete(self) -> None:
        self._completed += 1
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def timed_protocol(header_timeout_s: float) -> type[asyncio.Protocol]:
    """`TimedHttpProtocol` with its header timeout: the class uvicorn makes one of per connection."""
    return type("TimedHttpProtocol", (TimedHttpProtocol,), {"header_timeout_s": header_timeout_s})


def server_config(app: Any, limits: Limits, **options: Any) -> Any:
    """uvicorn's configuration for a receiver app, with the limits above."""
    import uvicorn

    return uvicorn.Config(
        app,
        http=timed_protocol(limits.header_timeout_s),
        limit_concurrency=limits.max_connections,
        **options,
    )
