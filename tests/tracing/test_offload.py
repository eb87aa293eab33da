"""filon's helper process: spans from a real agent through `setup_tracing()` (the default, offloaded),
the pipe's framing, a helper that dies, and an agent that dies."""

from __future__ import annotations

import itertools
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider

from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.agent.service import Conversation, SupportService
from filon.miner.store import Store
from filon.tracing.helper import frames, groups
from filon.tracing.offload import OffloadExporter
from filon.tracing.sampling.sampler import TailSampler
from filon.tracing.setup import setup_tracing
from filon.tracing.wire import HEADER, WireError, read_frame, start_helper, write_frame

REPO = Path(__file__).resolve().parents[2]


def emit(provider: TracerProvider, n: int, prefix: str) -> None:
    tracer = provider.get_tracer("test")
    for i in range(n):
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"web:{prefix}-{i}"}
        tracer.start_span("invoke_agent support", attributes=attrs).end()


@pytest.mark.parametrize("offload", [True, False], ids=["helper process", "in-process thread"])
def test_a_real_agent_turn_is_stored_by_the_helper(scripted, tmp_path: Path, offload: bool) -> None:  # type: ignore[no-untyped-def]
    """The default (filon's helper process) and FILON_OFFLOAD=false (a thread of the agent's process)
    store the same thing."""
    db = f"sqlite:///{tmp_path / 'agent.db'}"
    tracing = setup_tracing(db=db, sample_rate=1.0, offload=offload)
    try:
        assert isinstance(tracing.sampler.exporter, OffloadExporter) is offload
        service = SupportService(scripted_client(scripted.url), SCRIPTED_MODEL, "system.md")
        service.repondre(Conversation.web("helper-1"), "Mon email est ana@exemple.fr, où en est LL-10563 ?")
        assert tracing.flush(60)
        counters = tracing.counters
    finally:
        tracing.shutdown()
    assert counters.traces_kept == 1 and counters.spans_dropped == 0
    detail = Store.open(db).traces.conversation_detail("web:helper-1")
    assert detail is not None
    _, turns, _ = detail
    assert turns[0].tools and "ana@exemple.fr" not in turns[0].user  # redacted by the helper
    assert "@redacted.invalid" in turns[0].user


def test_shutdown_hands_over_everything_without_a_flush(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    exporter = OffloadExporter({"db": db, "rate": 1.0})
    provider = TracerProvider()
    provider.add_span_processor(TailSampler(exporter))
    emit(provider, 40, "s")
    provider.shutdown()  # no flush first: the helper still stores what it was given
    assert Store.open(db).stats().counts()["conversations"] == 40
    assert exporter.counters.traces_kept == 40


def test_a_dead_helper_never_reaches_the_agent_and_drops_are_counted(tmp_path: Path) -> None:
    exporter = OffloadExporter({"db": f"sqlite:///{tmp_path / 'db.sqlite'}", "rate": 1.0})
    assert exporter.ready.wait(60)
    os.kill(exporter.helper_pid, signal.SIGKILL)
    provider = TracerProvider()
    provider.add_span_processor(TailSampler(exporter))
    emit(provider, 5, "d")  # no exception here
    assert exporter.flush(10) is False
    assert exporter.counters.spans_dropped == 5
    provider.shutdown()


def test_a_full_queue_drops_and_counts_while_the_helper_lags(tmp_path: Path) -> None:
    """The helper stopped, a first trace larger than the pipe holds (1 MB) blocks the writer in its
    frame with whatever it took beside (at most 256 traces); the queue then holds `max_queue` traces,
    the rest are dropped and counted, and the agent's thread never waits. Resumed, everything kept is
    stored: stored + dropped = made."""
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    exporter = OffloadExporter({"db": db, "rate": 1.0}, max_queue=4)
    assert exporter.ready.wait(60)
    provider = TracerProvider()
    provider.add_span_processor(TailSampler(exporter))
    tracer = provider.get_tracer("test")
    os.kill(exporter.helper_pid, signal.SIGSTOP)
    try:
        attrs = {"gen_ai.conversation.id": "web:q-big", "gen_ai.input.messages": "x" * 1_100_000}
        tracer.start_span("invoke_agent a", attributes=attrs).end()
        assert exporter.hand_over(0.2) is False  # taken, most likely with this hand-over, not yet written
        emit(provider, 600, "q")
        assert exporter.hand_over(0.2) is False  # the writer is stuck on the pipe
    finally:
        os.kill(exporter.helper_pid, signal.SIGCONT)
    assert exporter.flush(60)
    dropped = exporter.counters.spans_dropped
    provider.shutdown()
    stored = Store.open(db).stats().counts()["conversations"]
    assert dropped >= 600 - 256 - 4 - 8  # a few more may pass the bound while threads race
    assert stored + dropped == 601


def test_what_is_submitted_once_shutdown_began_is_dropped_and_counted(tmp_path: Path) -> None:
    """The writer stuck on a frame larger than the pipe (the helper stopped) while shutdown begins in
    another thread: traces that end then are dropped and counted, a flush answers False at once, and
    once the helper resumes the first trace is stored: stored + dropped = made, nothing waits."""
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    exporter = OffloadExporter({"db": db, "rate": 1.0})
    assert exporter.ready.wait(60)
    provider = TracerProvider()
    provider.add_span_processor(TailSampler(exporter))
    tracer = provider.get_tracer("test")
    os.kill(exporter.helper_pid, signal.SIGSTOP)
    closing = threading.Thread(target=exporter.shutdown)
    try:
        attrs = {"gen_ai.conversation.id": "web:late-big", "gen_ai.input.messages": "x" * 1_100_000}
        tracer.start_span("invoke_agent a", attributes=attrs).end()
        closing.start()
        assert exporter.closing.wait(10)
        emit(provider, 5, "late")
        assert exporter.flush(30) is False and exporter.hand_over(30) is False
    finally:
        os.kill(exporter.helper_pid, signal.SIGCONT)
    closing.join(60)
    assert not closing.is_alive()
    stored = Store.open(db).stats().counts()["conversations"]
    assert (stored, exporter.counters.spans_dropped) == (1, 5)
    provider.shutdown()


def test_a_bad_store_is_reported_by_the_helper(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    exporter = OffloadExporter({"db": "nosuchdriver://x", "rate": 1.0})
    exporter.shutdown()
    assert "could not start" in caplog.text and "nosuchdriver" in caplog.text
    assert not exporter.ready.is_set()


def test_what_an_agent_handed_over_is_stored_when_the_agent_is_killed(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from opentelemetry.sdk.trace import TracerProvider
        from filon.tracing.offload import OffloadExporter
        from filon.tracing.sampling.sampler import TailSampler
        exporter = OffloadExporter({{"db": {db!r}, "rate": 1.0}})
        exporter.ready.wait(60)
        provider = TracerProvider()
        provider.add_span_processor(TailSampler(exporter))
        tracer = provider.get_tracer("t")
        for i in range(25):
            tracer.start_span("invoke_agent a", attributes={{"gen_ai.conversation.id": f"web:k-{{i}}"}}).end()
        exporter.hand_over(30)  # on the pipe, not yet stored
        print(exporter.helper_pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    agent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=REPO, text=True)
    assert agent.stdout is not None
    helper = int(agent.stdout.readline())
    pidfd = os.pidfd_open(helper)  # the helper is not our child: wait on it through a pidfd
    agent.wait(60)
    assert agent.returncode == -signal.SIGKILL
    ended, _, _ = select.select([pidfd], [], [], 60)
    os.close(pidfd)
    assert ended, "the helper did not end after its agent was killed"
    assert Store.open(db).stats().counts()["conversations"] == 25


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


@settings(max_examples=100, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=300), max_size=8),
    cuts=st.lists(st.integers(0, 3000), max_size=6),
)
def test_frames_come_out_whole_however_the_pipe_cuts_them(payloads: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(frame(p) for p in payloads)
    bounds = sorted({0, len(stream), *(c for c in cuts if c < len(stream))})
    buffer = bytearray()
    out: list[bytes] = []
    for start, end in itertools.pairwise(bounds):
        buffer += stream[start:end]
        out += frames(buffer)
    assert out == payloads and not buffer


def test_an_absurd_frame_size_is_refused() -> None:
    buffer = bytearray(HEADER.pack(2**31) + b"x")
    with pytest.raises(WireError, match="frame of"):
        frames(buffer)


def test_requests_read_together_are_stored_in_groups_of_about_a_batch() -> None:
    """`filon serve`'s helper: small requests share a transaction; one that fills a group closes it, so
    the first requests are answered while the receiver still decodes the next ones; order is kept and a
    malformed message is carried along (to be answered "failed"), never lost."""
    small = [["ingest", n, [[]] * 10] for n in range(3)]
    big = [["ingest", n, [[]] * 600] for n in range(3, 5)]
    odd = ["ingest", 5, "not a list"]
    cut = groups([*small, big[0], *small, big[1], odd], size=512)
    assert cut == [[*small, big[0]], [*small, big[1]], [odd]]
    assert groups([], size=512) == [[]] and groups(small, size=512) == [small]


@pytest.mark.parametrize("reachable", [True, False], ids=["store reachable", "store down"])
def test_serve_s_writer_opens_its_store_before_it_says_ready(tmp_path: Path, reachable: bool) -> None:
    """The first request does not pay for opening the store: by "ready" the database is migrated. A store
    that is down at start is no dead writer: it says ready all the same, and answers "failed" (503)."""
    db = tmp_path / "store.db" if reachable else tmp_path / "missing" / "store.db"
    proc = start_helper({"db": f"sqlite:///{db}", "config": {}, "redact": False, "mode": "ingest"})
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert read_frame(proc.stdout) == b'["ready"]'
        assert db.exists() == reachable
        if reachable:
            assert "turns" in Store.open(f"sqlite:///{db}").stats().counts()
        else:
            write_frame(proc.stdin, ["ingest", 7, []])
            answer = read_frame(proc.stdout)
            assert answer is not None and answer.startswith(b'["failed",[7]')
    finally:
        proc.stdin.close()
        assert proc.wait(30) == 0


def test_the_helpers_command_line_carries_no_secret(tmp_path: Path) -> None:
    """What `ps` shows every local user: the helper's argv. The store's URL (a password, on PostgreSQL)
    goes through its environment, which only its own user can read (/proc/PID/environ is 0400)."""
    secret = "s3cret-in-the-url"
    db = f"sqlite:///{tmp_path / 'store.db'}?note={secret}"
    proc = start_helper({"db": db, "config": {}, "redact": False, "mode": "ingest"})
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert read_frame(proc.stdout) == b'["ready"]'
        argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        assert secret not in argv and "filon.tracing.helper" in argv
        assert Path(f"/proc/{proc.pid}/environ").stat().st_mode & 0o077 == 0  # not for other users
    finally:
        proc.stdin.close()
        assert proc.wait(30) == 0
