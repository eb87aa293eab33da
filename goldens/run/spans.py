"""The eval runner's collector: finished spans kept by trace id until the runner reads its turn back.

Reading a turn from spans is `tracing.grouping.turn_of`, the same reader the store's ingest uses, so any
traced agent can be gated, not only ours.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor


class TraceCollector(SpanProcessor):
    def __init__(self) -> None:
        self._spans: dict[int, list[ReadableSpan]] = defaultdict(list)
        self._lock = threading.Lock()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        with self._lock:
            self._spans[span.context.trace_id].append(span)

    def take(self, trace_id: int) -> list[ReadableSpan]:
        with self._lock:
            return self._spans.pop(trace_id, [])

    def shutdown(self) -> None:
        return

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True
