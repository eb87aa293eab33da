"""`filon serve`'s limits, with real slow sockets on loopback: headers and bodies that never finish are
timed out, bodies past the caps on count and memory are answered 503 with Retry-After."""

from __future__ import annotations

import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.tracing.limits import Limits
from filon.tracing.receiver import ReceiverSettings
from tests.tracing.server import running

PB = {"Content-Type": "application/x-protobuf"}


def _address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


@contextmanager
def slow(url: str, count: int, sent: bytes) -> Iterator[list[socket.socket]]:
    """`count` connections that each send `sent` and then nothing more."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.create_connection(_address(url), timeout=10)
            if sent:
                sock.sendall(sent)
            socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def answers(socks: list[socket.socket], within: float = 20) -> list[bytes]:
    """What the server wrote to each socket before closing it; the wait ends when every one is closed
    (or after `within` seconds, a bound that a passing run never reaches)."""
    got = {s: b"" for s in socks}
    open_ = set(socks)
    with selectors.DefaultSelector() as sel:
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        deadline = time.monotonic() + within
        while open_ and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                data = sock.recv(65536)
                got[sock] += data
                if not data:
                    sel.unregister(sock)
                    open_.discard(sock)
    assert not open_, f"{len(open_)} connection(s) still open after {within} s"
    return [got[s] for s in socks]


def receiving(url: str, bodies: int) -> None:
    """Wait (polled, bounded) until the receiver says `bodies` bodies are being received."""
    deadline = time.monotonic() + 10
    while httpx.get(f"{url}/health").json()["receiving"]["bodies"] != bodies:
        assert time.monotonic() < deadline, "the slow bodies never reached the receiver"
        time.sleep(0.02)  # polling the receiver's own count, not waiting for a result


def head(length: int | None = None) -> bytes:
    sized = f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
    return (
        f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n{sized}\r\n".encode()
    )


def test_half_sent_headers_and_silent_connections_are_closed_with_408(tmp_path: Path) -> None:
    limits = Limits(header_timeout_s=0.5)
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'h.db'}", limits=limits)) as url:
        with (
            slow(url, 150, b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-") as half,
            slow(url, 20, b"") as mute,
        ):
            said = answers(half + mute)
        assert httpx.post(f"{url}/v1/traces", content=b"", headers=PB).status_code == 200  # still serving
    assert all(a.startswith(b"HTTP/1.1 408") for a in said), {a[:40] for a in said}


def test_a_body_that_trickles_is_answered_408_after_the_body_timeout(tmp_path: Path) -> None:
    limits = Limits(body_timeout_s=0.5)
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'b.db'}", limits=limits)) as url:
        trickling = slow(url, 30, head(100_000) + b"\x0a\x00")
        with trickling as socks:
            said = answers(socks)
    assert all(a.startswith(b"HTTP/1.1 408") and b"body not received within 0.5 s" in a for a in said)


def test_headers_past_64_kib_are_refused_431(tmp_path: Path) -> None:
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'l.db'}")) as url:
        big = slow(url, 1, b"POST /v1/traces HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 70_000)
        with big as socks:
            said = answers(socks)
    assert said[0].startswith(b"HTTP/1.1 431")


def test_bodies_past_the_cap_on_count_wait_for_a_retry(tmp_path: Path) -> None:
    limits = Limits(max_bodies=2)
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'c.db'}", limits=limits)) as url:
        with slow(url, 2, head(1000) + b"\x0a"):
            receiving(url, 2)
            busy = httpx.post(f"{url}/v1/traces", content=b"", headers=PB)
        receiving(url, 0)
        after = httpx.post(f"{url}/v1/traces", content=b"", headers=PB)
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert "--max-bodies" in busy.json()["message"]
    assert after.status_code == 200


def test_bodies_past_the_cap_on_memory_wait_for_a_retry(tmp_path: Path) -> None:
    """A declared length is reserved before reading; a chunked body is counted as it grows."""
    limits = Limits(max_buffered=48 * 1024)
    settings = ReceiverSettings(db=f"sqlite:///{tmp_path / 'm.db'}", max_body=32 * 1024, limits=limits)
    with running(settings) as url:
        with slow(url, 1, head(30 * 1024) + b"\x0a"):
            receiving(url, 1)
            declared = httpx.post(f"{url}/v1/traces", content=b"\x0a" * 20 * 1024, headers=PB)
            chunked = httpx.post(f"{url}/v1/traces", content=iter([b"\x0a" * 10 * 1024] * 2), headers=PB)
            small = httpx.post(f"{url}/v1/traces", content=b"", headers=PB)
        receiving(url, 0)
        health = httpx.get(f"{url}/health").json()
    assert declared.status_code == 503 and "--max-buffered" in declared.json()["message"]
    assert chunked.status_code == 503 and declared.headers["Retry-After"] == "5"
    assert small.status_code == 200
    assert health["receiving"] == {"bodies": 0, "buffered_bytes": 0}  # every reservation given back


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--max-bodies", "0"], "--max-bodies: at least 1"),
        (["--max-buffered", "1024"], "--max-buffered: at least --max-body"),
        (["--header-timeout", "0"], "--header-timeout: a number of seconds above 0"),
        (["--body-timeout", "-1"], "--body-timeout: a number of seconds above 0"),
    ],
)
def test_limits_that_make_no_sense_are_one_line(args: list[str], needle: str) -> None:
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 2 and needle in result.stderr


def test_headers_sent_in_one_go_are_counted_and_a_pipelined_body_is_not(tmp_path: Path) -> None:
    """70 KB of headers in a single send are refused 431 (the count is the parser's, not the reads');
    a request whose 100 KB body arrives with the next request's first bytes is answered, not refused."""
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'p.db'}")) as url:
        big = slow(url, 1, b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 70_000 + b"\r\n\r\n")
        with big as socks:
            refused = answers(socks)
        body = b"\x0a\x00" * 50_000  # an empty protobuf field repeated: a valid request, nothing in it
        first = head(len(body)) + body + b"POST /v1/traces HTTP/1.1\r\nHost: x\r\n"
        with slow(url, 1, first) as socks:
            socks[0].settimeout(10)
            said = socks[0].recv(65536)
    assert refused[0].startswith(b"HTTP/1.1 431")
    assert said.startswith(b"HTTP/1.1 200"), said[:80]


def test_an_early_refusal_closes_its_connection_whatever_the_sender_trickles(tmp_path: Path) -> None:
    """A wrong content type answered before the body is read: the connection is closed, not kept alive
    to swallow a body that trickles in past every timeout."""
    with running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'e.db'}")) as url:
        sent = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\nx"
        with slow(url, 5, sent) as socks:
            said = answers(socks)  # each answered, then closed by the server (the wait ends on EOF)
    assert all(a.startswith(b"HTTP/1.1 415") and b"connection: close" in a.lower() for a in said)
