"""Readers of the conventions other stacks emit, each turning its spans into the OpenTelemetry GenAI
attributes `tracing.grouping` reads: detected per span (never configured), one table of attributes each.

`readable(spans)` is the one entry: a span in filon's own convention comes back as it is; a span another
convention marks is translated: OpenInference (Phoenix's conventions) and the Vercel AI SDK so far.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracing.conventions import openinference, vercel_ai
from tracing.records import SpanRecord

READERS = ((openinference.KIND, openinference.to_genai), (vercel_ai.KIND, vercel_ai.to_genai))


def readable(spans: Sequence[SpanRecord]) -> Sequence[SpanRecord]:
    """The spans in the GenAI convention: each one another convention marks, translated."""
    if not any(mark in s.attributes for s in spans for mark, _ in READERS):
        return spans
    return [_read(s) for s in spans]


def _read(span: SpanRecord) -> SpanRecord:
    for mark, translate in READERS:
        if mark in span.attributes:
            return translate(span)
    return span
