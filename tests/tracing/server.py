"""A real `filon serve` app on a loopback port, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from filon.tracing.limits import server_config
from filon.tracing.receiver import ReceiverSettings, build_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_apps: list[Starlette] = []


def last_app() -> Starlette:
    """The app `running()` started last (its writer, for tests that reach into it)."""
    return _apps[-1]


@contextmanager
def running(settings: ReceiverSettings) -> Iterator[str]:
    port = free_port()
    app = build_app(settings)
    _apps[:] = [app]
    config = server_config(app, settings.limits, host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the receiver did not start")
        time.sleep(0.01)  # waiting for a socket, not for a result: polled, bounded
    ready = getattr(app.state.writer, "ready", None)  # filon's helper process, when it writes
    if ready is not None and not ready.wait(60):
        raise RuntimeError("the receiver's writer process did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
