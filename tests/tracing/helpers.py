"""Spans for tests, made by the real SDK, the official google-genai instrumentation and the OTLP encoder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from google.genai import types
from google.protobuf.json_format import MessageToDict
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from filon.agent.model import scripted_client
from filon.tracing.setup import ensure_tracing


@contextmanager
def captured() -> Iterator[InMemorySpanExporter]:
    """Every span the process makes while inside, through filon's global set-up (real SDK, real instrumentation)."""
    fanout = ensure_tracing()
    memory = InMemorySpanExporter()
    processor = SimpleSpanProcessor(memory)
    fanout.add(processor)
    try:
        yield memory
    finally:
        fanout.remove(processor)


def otlp_protobuf(spans: list[ReadableSpan]) -> bytes:
    return bytes(encode_spans(spans).SerializeToString())


def otlp_json(spans: list[ReadableSpan]) -> dict[str, Any]:
    """OTLP JSON as the spec writes it: protobuf's JSON mapping, but ids in hex, not base64."""
    doc = MessageToDict(encode_spans(spans))
    import base64

    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in s:
                        s[key] = base64.b64decode(s[key]).hex()
    return doc


def one_span(
    name: str,
    attributes: dict[str, str],
    trace_id: str = "1" * 32,
    span_id: str = "2" * 16,
    start: str = "1764900000000000000",
    end: str = "1764900001000000000",
    parent: str = "",
) -> dict[str, Any]:
    """An OTLP JSON export holding one span whose attributes are all strings, written by hand as another
    project's fixture would be."""
    span = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": start,
        "endTimeUnixNano": end,
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }
    if parent:  # a child span, exported on its own (as `SimpleSpanProcessor` sends each span it ends)
        span["parentSpanId"] = parent
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


FOREIGN_TOOLS = [
    {
        "name": "consulter_commande",
        "description": "commande",
        "parameters": {"type": "object", "properties": {"numero": {"type": "string"}}},
    },
    {
        "name": "handoff_to_human",
        "description": "human",
        "parameters": {"type": "object", "properties": {"motif": {"type": "string"}}},
    },
]


def foreign_agent_turn(url: str, conversation_id: str, message: str) -> None:
    """An agent nobody here wrote: google-genai + the official instrumentation, its own root span,
    no execute_tool spans, and an escalation tool called handoff_to_human."""
    client = scripted_client(url)
    tracer = trace.get_tracer("acme.support")
    config = types.GenerateContentConfig(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name=t["name"], description=t["description"], parameters_json_schema=t["parameters"]
                    )
                    for t in FOREIGN_TOOLS
                ]
            )
        ],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    with tracer.start_as_current_span(
        "handle_message", attributes={"gen_ai.conversation.id": conversation_id}
    ):
        contents: list[types.Content] = [
            types.Content(role="user", parts=[types.Part.from_text(text=message)])
        ]
        for _ in range(3):
            result = client.models.generate_content(model="acme-model", contents=contents, config=config)
            calls = result.function_calls or []
            if not calls:
                return
            contents.append(result.candidates[0].content)  # type: ignore[index]
            contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part.from_function_response(
                            name=c.name or "", response=json.loads('{"ok": true}')
                        )
                        for c in calls
                    ],
                )
            )
