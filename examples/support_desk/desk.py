"""A support desk that is not filon's: its own tools (English names), its own orders, its own prompt.

Built on google-genai with function calling, traced the way `README.md` here tells users to: the
official `opentelemetry-instrumentation-google-genai` for the model calls (message content on the
spans), one `invoke_agent` span per turn carrying `gen_ai.conversation.id` and the turn's messages, and
one `execute_tool` span per tool call with its real arguments and result. It never sets up a tracer
provider itself: the process that runs it does (filon's Python target, or `server.py`).

`answer(conversation_id, message, *, canal, tel)` is the entry point a gate calls; `setup(fixtures)`
puts a case's orders in place. `DESK_MODEL_URL` points google-genai at another endpoint (filon's scripted
model in CI); `DESK_SKIP_ESCALATION=1` is the broken variant: the desk loses its way to a human.
"""

from __future__ import annotations

import json
import os
from typing import Any

from google import genai
from google.genai import types
from opentelemetry import trace
from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
if not GoogleGenAiSdkInstrumentor().is_instrumented_by_opentelemetry:
    GoogleGenAiSdkInstrumentor().instrument()

MODEL = os.environ.get("DESK_MODEL", "gemini-2.5-flash")
PROMPT = (
    "Tu es l'assistant du service client de la Papeterie du Port. Réponds en français, brièvement. "
    "Ne communique le détail d'une commande qu'à son titulaire : vérifie que l'e-mail donné correspond "
    "à celui de la commande. Pour parler à un humain, utilise transfer_to_human."
)
ORDERS: dict[str, dict[str, Any]] = {
    "PP-2001": {
        "order_id": "PP-2001",
        "status": "shipped",
        "items": ["carnet A5 x2"],
        "email": "nina.roux@example.org",
    },
    "PP-2002": {
        "order_id": "PP-2002",
        "status": "preparing",
        "items": ["stylo plume x1"],
        "email": "omar.diallo@example.org",
    },
}
PARCELS = {"PP-2001": {"carrier": "La Poste", "state": "out for delivery", "tracking": "8R0012345"}}
HELP = [
    {"title": "Delivery", "body": "Livraison en 3 jours ouvrés, offerte dès 40 €."},
    {"title": "Returns", "body": "Retour possible sous 30 jours, articles non utilisés."},
]
_orders: dict[str, dict[str, Any]] = dict(ORDERS)
_histories: dict[str, list[types.Content]] = {}
tracer = trace.get_tracer("support-desk")


def setup(fixtures: dict[str, Any]) -> None:
    """A case's fixtures, in the desk's own format: `{"orders": {ID: record}}`, added to the orders (cases
    run side by side: one case's setup never takes away another's orders)."""
    _orders.update(fixtures.get("orders") or {})


def lookup_order(order_id: str) -> dict[str, Any]:
    return _orders.get(order_id.upper(), {"error": f"no order {order_id}"})


def track_parcel(order_id: str) -> dict[str, Any]:
    return PARCELS.get(order_id.upper(), {"error": f"no parcel for {order_id}"})


def search_help(query: str) -> dict[str, Any]:
    words = query.lower()
    found = [
        a for a in HELP if any(w in words for w in ("livr", "deliver", "frais")) == (a["title"] == "Delivery")
    ]
    return {"articles": found or HELP}


def transfer_to_human(reason: str) -> dict[str, Any]:
    return {"ticket": "DESK-77"}


TOOLS = {f.__name__: f for f in (lookup_order, track_parcel, search_help, transfer_to_human)}


def _declare(name: str, description: str, parameter: str) -> types.FunctionDeclaration:
    schema = types.Schema(
        type="OBJECT", properties={parameter: types.Schema(type="STRING")}, required=[parameter]
    )
    return types.FunctionDeclaration(name=name, description=description, parameters=schema)


def _declarations() -> list[types.Tool]:
    declared = [
        _declare("lookup_order", "Look up an order's status and items.", "order_id"),
        _declare("track_parcel", "Where an order's parcel is.", "order_id"),
        _declare("search_help", "Search the help center (delivery, returns).", "query"),
        _declare("transfer_to_human", "Hand the customer over to a human advisor.", "reason"),
    ]
    if os.environ.get("DESK_SKIP_ESCALATION") == "1":  # the broken variant
        declared = [d for d in declared if d.name != "transfer_to_human"]
    return [types.Tool(function_declarations=declared)]


def _client() -> genai.Client:
    url = os.environ.get("DESK_MODEL_URL")
    if url:
        options = types.HttpOptions(base_url=url, api_version="v1beta")
        return genai.Client(api_key=os.environ.get("GOOGLE_API_KEY", "stand-in"), http_options=options)
    return genai.Client()


def _text(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}], ensure_ascii=False)


def answer(conversation_id: str, message: str, *, canal: str = "web", tel: str | None = None) -> str:
    """One customer turn: the model and the tools until an answer, everything traced."""
    history = _histories.setdefault(conversation_id, [])
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support_desk",
        "gen_ai.conversation.id": conversation_id,
        "gen_ai.input.messages": _text("user", message),
    }
    with tracer.start_as_current_span("invoke_agent support_desk", attributes=attributes) as span:
        history.append(types.Content(role="user", parts=[types.Part(text=message)]))
        config = types.GenerateContentConfig(system_instruction=PROMPT, tools=_declarations())
        client = _client()
        said = ""
        for _ in range(5):
            reply = client.models.generate_content(model=MODEL, contents=history, config=config)
            content = reply.candidates[0].content if reply.candidates else None
            if content is None:
                break
            history.append(content)
            calls = [p.function_call for p in content.parts or [] if p.function_call]
            if not calls:
                said = reply.text or ""
                break
            parts = [
                types.Part(function_response=types.FunctionResponse(name=c.name, response=_run(c)))
                for c in calls
            ]
            history.append(types.Content(role="user", parts=parts))
        span.set_attribute("gen_ai.output.messages", _text("assistant", said))
        return said


def _run(call: types.FunctionCall) -> dict[str, Any]:
    name, args = call.name or "", dict(call.args or {})
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.arguments": json.dumps(args, ensure_ascii=False),
    }
    with tracer.start_as_current_span(f"execute_tool {name}", attributes=attributes) as span:
        tool = TOOLS.get(name)
        result = tool(**args) if tool else {"error": f"unknown tool {name}"}
        span.set_attribute("gen_ai.tool.call.result", json.dumps(result, ensure_ascii=False))
        return result
