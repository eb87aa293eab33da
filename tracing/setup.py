"""One call sets tracing up for an agent process: an SDK `TracerProvider` (or the one already installed),
the official google-genai instrumentation with message content captured on spans, and a fan-out
processor to which filon's consumers (the store exporter, the eval runner's collector) attach and detach.

The agent itself never touches the SDK: it uses the OpenTelemetry API, as a real agent does.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from filon.miner.rules.config import FlagConfig
from filon.miner.settings import settings

if TYPE_CHECKING:
    from filon.tracing.exporter import ExportCounters
    from filon.tracing.sampling.sampler import TailSampler

log = logging.getLogger(__name__)
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class Fanout(SpanProcessor):
    """Span processors that can be added and removed while spans flow; one failing never stops another."""

    def __init__(self) -> None:
        self._processors: tuple[SpanProcessor, ...] = ()
        self._lock = threading.Lock()

    def add(self, processor: SpanProcessor) -> None:
        with self._lock:
            self._processors = (*self._processors, processor)

    def remove(self, processor: SpanProcessor) -> None:
        with self._lock:
            self._processors = tuple(p for p in self._processors if p is not processor)

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        for p in self._processors:
            try:
                p.on_start(span, parent_context)
            except Exception:  # an observer must never break the agent
                log.exception("span processor %r failed on_start", p)

    def on_end(self, span: ReadableSpan) -> None:
        for p in self._processors:
            try:
                p.on_end(span)
            except Exception:
                log.exception("span processor %r failed on_end", p)

    def shutdown(self) -> None:
        for p in self._processors:
            p.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return all(p.force_flush(timeout_millis) for p in self._processors)


_fanout: Fanout | None = None
_lock = threading.Lock()


def capture_content_enabled() -> bool:
    return settings().capture_content


def ensure_tracing() -> Fanout:
    """Idempotent set-up; returns the fan-out to attach consumers to."""
    global _fanout
    with _lock:
        if _fanout is not None:
            return _fanout
        if capture_content_enabled():
            os.environ.setdefault(CAPTURE_ENV, "SPAN_ONLY")
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
            provider = trace.get_tracer_provider()
        assert isinstance(provider, TracerProvider)
        fanout = Fanout()
        provider.add_span_processor(fanout)
        from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

        instrumentor = GoogleGenAiSdkInstrumentor()
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=provider)
        _fanout = fanout
        return fanout


class FilonTracing:
    """filon attached to an agent process: the tail sampler feeding the store. Detach with `shutdown()`."""

    def __init__(self, fanout: Fanout, sampler: TailSampler) -> None:
        self.fanout = fanout
        self.sampler = sampler

    @property
    def counters(self) -> ExportCounters:
        return self.sampler.exporter.counters

    def flush(self, timeout_s: float = 30.0) -> bool:
        return self.sampler.exporter.flush(timeout_s)

    def shutdown(self) -> None:
        self.fanout.remove(self.sampler)
        self.sampler.shutdown()


def setup_tracing(
    db: str | None = None,
    sample_rate: float | None = None,
    escalation_tools: list[str] | None = None,
    redact: bool | None = None,
    max_traces: int = 10_000,
    offload: bool | None = None,
) -> FilonTracing:
    """One call for an agent process: OTel SDK + google-genai instrumentation + filon's sampler and exporter.

    Settings default to the environment: FILON_DB, FILON_SAMPLE_RATE (0.1), FILON_CAPTURE_CONTENT,
    FILON_REDACT (on), FILON_OFFLOAD (on: deciding and storing run in filon's helper process, not in
    the agent's). The store is opened (and migrated) now, so a bad FILON_DB fails here, not later.
    """
    from filon.miner.store import Store, db_url
    from filon.tracing.exporter import StoreExporter
    from filon.tracing.ingest import Ingestor
    from filon.tracing.offload import OffloadExporter
    from filon.tracing.redact import Redactor, redaction_secret
    from filon.tracing.sampling.decider import Decider
    from filon.tracing.sampling.rate import rate_from_env
    from filon.tracing.sampling.sampler import Exporter, TailSampler
    from filon.tracing.wire import helper_settings, offload_enabled

    fanout = ensure_tracing()
    rate = rate_from_env() if sample_rate is None else sample_rate
    config = FlagConfig.load(escalation_tools=escalation_tools)
    url = db_url(db)
    store = Store.open(url)
    secret = redaction_secret(redact)
    exporter: Exporter
    if offload_enabled() if offload is None else offload:
        store.close()
        exporter = OffloadExporter(*helper_settings(url, config, secret, rate=rate, max_traces=max_traces))
    else:
        redactor = Redactor(secret, config.test_identities) if secret is not None else None

        def factory() -> Ingestor:
            return Ingestor(store, config, redactor)

        exporter = StoreExporter(factory, Decider(rate, config, max_traces))
    sampler = TailSampler(exporter, max_traces=max_traces)
    fanout.add(sampler)
    return FilonTracing(fanout, sampler)
