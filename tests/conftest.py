"""Shared fixtures: every path filon writes is pointed at tmp_path; a scripted model serves over loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent.model import SCRIPTED_MODEL, scripted_client
from agent.scripted import ScriptedModel, ScriptedSettings
from agent.service import SupportService

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_DB", f"sqlite:///{tmp_path / 'filon.db'}")
    monkeypatch.setenv("FILON_HOME", str(tmp_path / "var"))
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
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
