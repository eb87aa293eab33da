"""The tail sampler: a span processor that holds each trace until its root ends, then hands it over.

On the agent's thread it only appends to a dict and, when a root ends, submits the trace to the exporter
(`put_nowait`); deciding and storing happen on the exporter's thread. Memory is bounded: at most
`max_traces` open traces, and a trace whose root never ends is evicted after `ttl_s`, its spans counted
as dropped. A span that ends after its root follows its trace's decision.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Protocol

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from filon.tracing.sampling.keeper import ExportCounters


class Exporter(Protocol):
    """Where finished traces go: `StoreExporter` (in this process) or `OffloadExporter` (filon's helper)."""

    @property
    def counters(self) -> ExportCounters: ...

    def submit(self, kind: str, spans: list[ReadableSpan]) -> None: ...

    def drop(self, n: int, why: str) -> None: ...

    def flush(self, timeout_s: float = 30.0) -> bool: ...

    def shutdown(self, timeout_s: float = 30.0) -> None: ...


class TailSampler(SpanProcessor):
    def __init__(self, exporter: Exporter, max_traces: int = 10_000, ttl_s: float = 300.0) -> None:
        self.exporter = exporter
        self.max_traces = max_traces
        self.ttl_s = ttl_s
        # in the order their traces came, the oldest first: a plain dict for the few open traces (cheaper
        # than OrderedDict on every span); the handed ones, up to 40,000, lose their oldest one by one,
        # which a plain dict finds by scanning the deleted entries before it
        self._open: dict[int, tuple[float, list[ReadableSpan]]] = {}
        self._handed: OrderedDict[int, None] = OrderedDict()
        self._lock = threading.Lock()
        self._ends = 0

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return

    def on_end(self, span: ReadableSpan) -> None:
        try:
            self._on_end(span)
        except Exception:  # never into the agent
            self.exporter.drop(1, "sampler error")

    def _on_end(self, span: ReadableSpan) -> None:
        try:  # the SDK's own fields: every property of `ReadableSpan` is a Python call, on every span
            ctx, parent = span._context, span._parent
        except AttributeError:
            ctx, parent = span.context, span.parent
        if ctx is None:
            return
        tid = ctx.trace_id
        is_root = parent is None or parent.is_remote
        submit: tuple[str, list[ReadableSpan]] | None = None
        evicted = 0
        with self._lock:
            self._ends += 1
            if tid in self._handed:
                submit = ("late", [span])
            else:
                entry = self._open.get(tid)
                if entry is None:
                    entry = (time.monotonic(), [])
                    self._open[tid] = entry
                entry[1].append(span)
                if is_root:
                    del self._open[tid]
                    self._handed[tid] = None
                    if len(self._handed) > 4 * self.max_traces:
                        self._handed.popitem(last=False)
                    submit = ("trace", entry[1])
            if len(self._open) > self.max_traces or self._ends % 256 == 0:
                evicted = self._evict()
        if submit is not None:
            self.exporter.submit(*submit)
        if evicted:
            self.exporter.drop(evicted, "trace whose root never ended (TTL or max traces)")

    def _evict(self) -> int:
        now = time.monotonic()
        evicted = 0
        while self._open:
            tid, (started, spans) = next(iter(self._open.items()))
            if len(self._open) <= self.max_traces and now - started < self.ttl_s:
                break
            del self._open[tid]
            evicted += len(spans)
        return evicted

    @property
    def open_traces(self) -> int:
        return len(self._open)

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.exporter.flush(timeout_millis / 1000)
