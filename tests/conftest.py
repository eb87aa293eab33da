"""Shared fixtures: every path filon writes is pointed at tmp_path; a scripted model serves over loopback."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.agent.scripted import ScriptedModel, ScriptedSettings
from filon.agent.service import SupportService

REPO = Path(__file__).resolve().parent.parent

# CI draws the same examples on every run, so a landing never depends on luck; a developer's runs draw new
# ones, and what they find is pinned with `@example` beside the property.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def copy_set(cases: Path | str) -> Path:
    """The reference set copied for a test: its cases at `cases`, its judges' rubrics beside them."""
    import shutil

    cases = Path(cases)
    shutil.copytree(REPO / "goldens" / "cases", cases)
    shutil.copytree(REPO / "goldens" / "judges", cases.parent / "judges", dirs_exist_ok=True)
    return cases


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers by what a test uses: PostgreSQL (`db_url`'s postgres side, `postgres_url`), the scripted
    model (`scripted` and what builds on it), a receiver on a port (`tests/tracing/server.py`); `tmux` and
    `browser` are marked where they are written."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("db_url") == "postgres" or "postgres_url" in names:
            item.add_marker(pytest.mark.postgres)
        if "scripted" in names:
            item.add_marker(pytest.mark.model)
        module = getattr(item, "module", None)
        if module is not None and any(
            getattr(v, "__module__", None) == "tests.tracing.server" for v in vars(module).values()
        ):
            item.add_marker(pytest.mark.server)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_DB", f"sqlite:///{tmp_path / 'filon.db'}")
    monkeypatch.setenv("FILON_HOME", str(tmp_path / "var"))
    monkeypatch.setenv("FILON_SECRET", "tests")  # stable pseudonyms: snapshots and drafts compare equal
    monkeypatch.setenv(
        "FILON_LANG", "fr"
    )  # `filon eval --lang` sets it for its process: never for the next test
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)  # a job summary is asked for by its test only
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    for name in ("SEED", "LATENCY_MS", "429_RATE", "503_RATE", "NOISE"):
        monkeypatch.delenv(f"FILON_SCRIPTED_{name}", raising=False)


@pytest.fixture(scope="session")
def scripted() -> Iterator[ScriptedModel]:
    with ScriptedModel(ScriptedSettings()) as server:
        yield server


@pytest.fixture
def spans() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(spans: InMemorySpanExporter) -> TracerProvider:
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(spans))
    return tp


@pytest.fixture
def make_service(scripted: ScriptedModel, provider: TracerProvider):  # type: ignore[no-untyped-def]
    def make(prompt: str | None = None, **kwargs):  # type: ignore[no-untyped-def]
        return SupportService(
            scripted_client(scripted.url), SCRIPTED_MODEL, prompt, tracer_provider=provider, **kwargs
        )

    return make


PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def _postgres_url() -> str | None:
    """A fresh database on the machine's PostgreSQL for this test session, or None when unreachable."""
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=2) as conn:
            name = f"filon_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception:
        return None
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    url = _postgres_url()
    if url is None:
        pytest.skip(
            "PostgreSQL is not reachable at 127.0.0.1:5432 (user postgres): PostgreSQL store tests skipped"
        )
    yield url
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        for name in [url.rsplit("/", 1)[1], *_MADE]:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_MADE: list[str] = []  # every database `_fresh_schema` made in this process


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every store test runs on a real SQLite file and on a real PostgreSQL database, dropped after it
    (`WITH (FORCE)`: a connection the test left open does not keep it)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        base = request.getfixturevalue("postgres_url")
        url = _fresh_schema(base)
    monkeypatch.setenv("FILON_DB", url)
    yield url
    if request.param == "postgres":
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def _fresh_schema(base: str) -> str:
    """Each test gets an empty PostgreSQL database of its own (created from the session's server)."""
    import psycopg

    name = f"filon_t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    _MADE.append(name)  # dropped at the session's end if its test did not drop it
    return base.rsplit("/", 1)[0] + "/" + name
