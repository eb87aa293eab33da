"""The support desk behind HTTP, as a team would serve it: `POST /chat` with
`{"conversation_id", "message", "canal", "tel", "fixtures"?}` answers `{"texte": ...}`.

Its spans go over OTLP/HTTP to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (filon's runner listens on
`http://127.0.0.1:4318/v1/traces` during a gate) and are flushed before each reply, so the gate never
waits on a batch processor's 5-second timer. Serve it with `uvicorn server:app --port 8000`.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

provider = TracerProvider(resource=Resource.create({"service.name": "support-desk"}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

import desk  # noqa: E402  (after the provider: its tracer and the instrumentation use it)


async def chat(request: Request) -> JSONResponse:
    body: dict[str, Any] = await request.json()
    text = await run_in_threadpool(_turn, body)
    return JSONResponse({"texte": text})


def _turn(body: dict[str, Any]) -> str:
    if "fixtures" in body:
        desk.setup(body["fixtures"] or {})
    text = desk.answer(
        str(body["conversation_id"]),
        str(body["message"]),
        canal=body.get("canal", "web"),
        tel=body.get("tel"),
    )
    provider.force_flush()  # the turn's spans are out before the reply
    return text


app = Starlette(routes=[Route("/chat", chat, methods=["POST"])])
