"""Readers of the conventions other stacks emit, each turning its spans into the OpenTelemetry GenAI
attributes `tracing.grouping` reads: detected per span (never configured), one table of attributes each.

`readable(spans)` is the one entry: a span in filon's own convention comes back as it is; a span another
convention marks is translated. Only OpenInference (Phoenix's conventions) is read so far.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracing.conventions import openinference
from tracing.records import SpanRecord


def readable(spans: Sequence[SpanRecord]) -> Sequence[SpanRecord]:
    """The spans in the GenAI convention: each one another convention marks, translated."""
    if not any(openinference.KIND in s.attributes for s in spans):
        return spans
    return [openinference.to_genai(s) if openinference.KIND in s.attributes else s for s in spans]
