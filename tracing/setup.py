"""One call sets tracing up for an agent process: an SDK `TracerProvider` (or the one already installed),
the official google-genai instrumentation with message content captured on spans, and a fan-out
processor to which filon's consumers (the store exporter, the eval runner's collector) attach and detach.

The agent itself never touches the SDK: it uses the OpenTelemetry API, as a real agent does.
"""

from __future__ import annotations

import logging
import os
import threading

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

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
    return os.environ.get("FILON_CAPTURE_CONTENT", "true").lower() not in ("0", "false", "no", "off")


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
