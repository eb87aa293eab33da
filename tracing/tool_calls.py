"""A turn's tool calls, each with what the tool really took and returned, wherever its stack put them.

Three places, read together: the tool spans (`execute_tool`), the model's requests (the `tool_call`
parts of its output messages, each with the arguments the model wrote and usually a call id), and the
model's next input (the `tool_call_response` parts: the result as the model read it back). A tool span
gives the calls and their order; its arguments and result are taken out of the framework's envelope
(`tracing.conventions.envelopes`). Where the span recorded no usable arguments (LangChain's
one-argument string input, `"A-300"`), the model's request for that call gives them (paired by call
id, else the next request of that tool's name); where it recorded no result, the model's next input
does (paired by call id). A stack without tool spans (a hand-written loop on a client library) gives the
requests, with their results from the next call's input.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple

from miner.jsontext import loads
from miner.model import ToolCall
from tracing.conventions import envelopes
from tracing.records import SpanRecord

OUTPUT, INPUT = "gen_ai.output.messages", "gen_ai.input.messages"
TOOL_NAME, TOOL_ARGUMENTS = "gen_ai.tool.name", "gen_ai.tool.call.arguments"
TOOL_RESULT, TOOL_CALL_ID = "gen_ai.tool.call.result", "gen_ai.tool.call.id"
ERROR_TYPE = "error.type"


class Request(NamedTuple):
    call_id: str | None
    name: str
    arguments: Any  # as recorded: JSON text or a value


def messages(value: Any) -> list[Any]:
    """The messages in an attribute (JSON text or already parsed); entries that are not objects are left
    for the readers to skip."""
    if type(value) is str:
        try:
            value = loads(value)
        except ValueError:
            return []
    return value if type(value) is list else []


def _parts(value: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages(value):
        if type(message) is dict:
            out += [p for p in message.get("parts") or () if type(p) is dict]
    return out


def requests(models: Sequence[SpanRecord]) -> list[Request]:
    """The tool calls the model asked for, in order."""
    out: list[Request] = []
    for s in models:
        for part in _parts(s.attributes.get(OUTPUT)):
            if part.get("type") == "tool_call" and part.get("name"):
                call_id = part.get("id")
                out.append(
                    Request(str(call_id) if call_id else None, str(part["name"]), part.get("arguments"))
                )
    return out


def responses(models: Sequence[SpanRecord]) -> dict[str, Any]:
    """The results the model was given back, by call id (from each call's input)."""
    out: dict[str, Any] = {}
    for s in models[1:]:  # the first call's input holds only earlier turns' results
        for part in _parts(s.attributes.get(INPUT)):
            if part.get("type") == "tool_call_response" and part.get("id"):
                out[str(part["id"])] = part.get("response")
    return out


class _Requests:
    """The model's requests, taken once each: by call id, else the next one of a name."""

    def __init__(self, asked: list[Request]) -> None:
        self.by_id = {r.call_id: r for r in asked if r.call_id}
        self.by_name: dict[str, list[Request]] = defaultdict(list)
        for r in asked:
            self.by_name[r.name].append(r)
        self.taken: set[int] = set()

    def take(self, call_id: str | None, name: str) -> Request | None:
        found = self.by_id.get(call_id) if call_id else None
        if found is None:
            found = next((r for r in self.by_name.get(name, ()) if id(r) not in self.taken), None)
        if found is not None:
            self.taken.add(id(found))
        return found


def _dict(value: Any) -> dict[str, Any] | None:
    value = envelopes.arguments(value)[0]
    return value if type(value) is dict else None


def tool_calls(tools: Sequence[SpanRecord], models: Sequence[SpanRecord]) -> list[ToolCall]:
    """The turn's tool calls from its tool spans, else from the model's requests."""
    if not tools:
        answered = responses(models) if len(models) > 1 else {}
        out = []
        for r in requests(models):
            result = envelopes.result(answered[r.call_id])[0] if r.call_id in answered else None
            out.append(ToolCall(r.name, _dict(r.arguments) or {}, result, None, r.arguments is not None))
        return out
    asked: _Requests | None = None  # read only when a span lacks something: most turns never pay for it
    given: dict[str, Any] | None = None
    seen: list[tuple[str | None, str]] = []  # (call id, name) of the spans before, for pairing by order
    out = []
    for s in tools:
        attrs = s.attributes
        raw = attrs.get(TOOL_ARGUMENTS)
        args, args_id = envelopes.arguments(raw)
        result, result_id = envelopes.result(attrs.get(TOOL_RESULT))
        name = str(attrs.get(TOOL_NAME) or s.name.removeprefix("execute_tool "))
        call_id = str(attrs.get(TOOL_CALL_ID) or result_id or args_id or "") or None
        recorded = raw is not None
        request = None
        if models and (type(args) is not dict or result is None):
            if asked is None:
                asked = _Requests(requests(models))
                for earlier in seen:  # the requests the spans before already stand for
                    asked.take(*earlier)
            request = asked.take(call_id, name)
        elif asked is not None:
            asked.take(call_id, name)
        seen.append((call_id, name))
        if type(args) is not dict and request is not None and (model_args := _dict(request.arguments)):
            args, recorded = model_args, True
        if result is None and models:
            given = responses(models) if given is None else given
            key = call_id or (request.call_id if request else None)
            if key in given:
                result = envelopes.result(given[key])[0]
        error = str(attrs.get(ERROR_TYPE) or s.status_message or "error") if s.status == "ERROR" else None
        out.append(ToolCall(name, args if type(args) is dict else {}, result, error, recorded))
    return out
