"""A turn's tool calls, each with what the tool really took and returned, wherever its stack put them.

Three places, read together: the tool spans (`execute_tool`), the model's requests (the `tool_call`
parts of its output messages, each with the arguments the model wrote and usually a call id), and the
model's next input (the `tool_call_response` parts after the customer's newest message: the result as
the model read it back in this turn). A tool span gives the calls and their order; its arguments and result are taken out of the framework's envelope
(`tracing.conventions.envelopes`). Where the span recorded no usable arguments (LangChain's
one-argument string input, `"A-300"`), the model's request for that call gives them (paired by call
id, else the first request of that tool's name no other span's id claims); where it recorded no result, the model's next input
does (paired by call id). A stack without tool spans (a hand-written loop on a client library) gives the
requests, with their results from the next call's input.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from filon.miner.core.jsontext import loads, parsed
from filon.miner.core.model import ToolCall
from filon.tracing.conventions import envelopes, shapes
from filon.tracing.records import SpanRecord

OUTPUT, INPUT = "gen_ai.output.messages", "gen_ai.input.messages"
TOOL_NAME, TOOL_ARGUMENTS = "gen_ai.tool.name", "gen_ai.tool.call.arguments"
TOOL_RESULT, TOOL_CALL_ID = "gen_ai.tool.call.result", "gen_ai.tool.call.id"
ERROR_TYPE = "error.type"


class Request(NamedTuple):
    call_id: str | None
    name: str
    arguments: Any  # as recorded: JSON text or a value


def messages(value: Any) -> list[Any]:
    """The messages in an attribute (JSON text or already parsed), each in the form filon reads
    (`tracing.conventions.shapes.message`: `content` text or blocks, OpenAI's `tool_calls`…); entries that
    are not objects are left for the readers to skip."""
    if type(value) is str:
        try:
            value = loads(value)
        except ValueError:
            return []
    return [shapes.message(m) for m in value] if type(value) is list else []


def message_parts(value: Any) -> list[dict[str, Any]]:
    """The parts of these messages, in order, each a dict (text, a tool call, a tool's response)."""
    out: list[dict[str, Any]] = []
    for message in messages(value):
        parts = message.get("parts") if type(message) is dict else None
        if type(parts) is list:
            out += [p for p in parts if type(p) is dict]
    return out


def _this_turn(value: Any) -> list[Any]:
    """A model call's input from the customer's newest message on: what came before is history, whose
    results belong to earlier turns (some stacks number their calls afresh each turn: `call_0` again)."""
    found = messages(value)
    for i in range(len(found) - 1, -1, -1):
        message = found[i]
        if type(message) is dict and message.get("role") == "user":
            parts = message.get("parts")
            if type(parts) is list and any(type(p) is dict and p.get("type") == "text" for p in parts):
                return found[i + 1 :]
    return found


def requests(models: Sequence[SpanRecord]) -> list[Request]:
    """The tool calls the model asked for, in order."""
    out: list[Request] = []
    for s in models:
        for part in message_parts(s.attributes.get(OUTPUT)):
            if part.get("type") == "tool_call" and part.get("name"):
                call_id = part.get("id")
                out.append(
                    Request(str(call_id) if call_id else None, str(part["name"]), part.get("arguments"))
                )
    return out


def _read_back_in_order(value: Any) -> list[Any]:
    """The results a model call's input ends with, in order, that name no call (a `tool` message with no
    id, as OpenInference flattens one): those of the previous call's requests."""
    found = _this_turn(value)
    out: list[Any] = []
    for message in reversed(found):
        if type(message) is not dict or message.get("role") != "tool":
            break
        parts = [p for p in message.get("parts") or [] if type(p) is dict]
        answers = [p for p in parts if p.get("type") == "tool_call_response"]
        if any(p.get("id") for p in answers):
            return []  # results with ids: paired by them
        if answers:
            out.append(answers[0].get("response", answers[0].get("result")))
        else:
            out.append("".join(str(p.get("content") or "") for p in parts if p.get("type") == "text"))
    return out[::-1]


def by_position(models: Sequence[SpanRecord]) -> list[Any]:
    """Aligned with `requests(models)`: each id-less request's result where only its place tells it, the
    j-th id-less request of a call taking the j-th id-less result the next call read back (None else)."""
    out: list[Any] = []
    for k, s in enumerate(models):
        asked = [
            p
            for p in message_parts(s.attributes.get(OUTPUT))
            if p.get("type") == "tool_call" and p.get("name")
        ]
        given = _read_back_in_order(models[k + 1].attributes.get(INPUT)) if k + 1 < len(models) else []
        if len(given) != sum(1 for p in asked if not p.get("id")):
            given = []  # not one result for each: no pairing by place
        j = 0
        for part in asked:
            if part.get("id") or j >= len(given):
                out.append(None)
            else:
                out.append(given[j])
                j += 1
    return out


def _served(models: Sequence[SpanRecord]) -> dict[str, list[Any]]:
    """The results a provider's built-in tools returned within a model call's own output, by call id."""
    out: dict[str, list[Any]] = {}
    for s in models:
        for part in message_parts(s.attributes.get(OUTPUT)):
            if part.get("type") == "tool_call_response" and part.get("id"):
                out.setdefault(str(part["id"]), []).append(part.get("response"))
    return out


def _by_name(models: Sequence[SpanRecord]) -> dict[str, list[Any]]:
    """The results read back in this turn with no call id but their tool's name, in order (the last call's
    input that holds the most)."""
    out: dict[str, list[Any]] = {}
    for s in models[1:]:
        seen: dict[str, list[Any]] = {}
        for part in message_parts(_this_turn(s.attributes.get(INPUT))):
            if part.get("type") == "tool_call_response" and not part.get("id") and part.get("name"):
                seen.setdefault(str(part["name"]), []).append(part.get("response", part.get("result")))
        for key, found in seen.items():
            if len(found) >= len(out.get(key, ())):
                out[key] = found
    return out


def responses(models: Sequence[SpanRecord]) -> dict[str, list[Any]]:
    """The results the model was given back in this turn, by call id, in the order given (from the last
    call's input that holds them, after the customer's newest message). Some stacks reuse an id within a
    turn: the n-th request of an id takes the n-th result of that id."""
    out: dict[str, list[Any]] = {}
    for s in models[1:]:  # the first call's input holds only earlier turns' results
        seen: dict[str, list[Any]] = {}
        for part in message_parts(_this_turn(s.attributes.get(INPUT))):
            if part.get("type") == "tool_call_response" and part.get("id"):
                seen.setdefault(str(part["id"]), []).append(part.get("response", part.get("result")))
        for key, found in seen.items():  # a later call's input repeats the earlier results, and more
            if len(found) >= len(out.get(key, ())):
                out[key] = found
    return out


class _Span(NamedTuple):
    """A tool span as recorded, its arguments and result out of their envelopes."""

    name: str
    recorded: bool
    arguments: Any
    result: Any
    call_id: str | None
    error: str | None


# where a tool span keeps its arguments and result: the conventions', an OpenInference-like span's (Koog),
# pydantic-ai's earlier names, VeADK's (`gen_ai.tool.input`), bare `input` / `output` (OpenInference's
# GenAI examples), in that order
ARGUMENT_KEYS = (TOOL_ARGUMENTS, "input.value", "tool_arguments", "gen_ai.tool.input", "input")
RESULT_KEYS = (TOOL_RESULT, "output.value", "tool_response", "gen_ai.tool.output", "output")
_PARAMS = "code.function.parameters."
_RETURN = "code.function.return.value"
_CASTS: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "bool": lambda v: v.lower() == "true"}


def _code_function(attrs: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
    """What google-genai's instrumentation (official, and under Logfire) records of a function it called
    itself (automatic function calling): each parameter as `code.function.parameters.<name>.value` (and its
    `.type`), the return value as `code.function.return.value`."""
    args: dict[str, Any] | None = None
    for key, value in attrs.items():
        if key.startswith(_PARAMS) and key.endswith(".value"):
            name = key[len(_PARAMS) : -len(".value")]
            cast = _CASTS.get(str(attrs.get(f"{_PARAMS}{name}.type")))
            if cast is not None and type(value) is str:
                with contextlib.suppress(ValueError):
                    value = cast(value)
            kind = attrs.get(f"{_PARAMS}{name}.type")
            args = {**(args or {}), name: parsed(value) if kind not in ("str", None) else value}
    return args, attrs.get(_RETURN)


def _read(s: SpanRecord) -> _Span:
    attrs = s.attributes
    raw = next((attrs[k] for k in ARGUMENT_KEYS if k in attrs), None)
    returned = next((attrs[k] for k in RESULT_KEYS if k in attrs), None)
    if (raw is None or returned is None) and (_RETURN in attrs or any(k.startswith(_PARAMS) for k in attrs)):
        found, returned_value = _code_function(attrs)
        if raw is None and found is not None:
            raw = found
        if returned is None:
            returned = returned_value
    args, args_id = envelopes.arguments(raw)
    result, result_id = envelopes.result(returned)
    name = str(attrs.get(TOOL_NAME) or s.name.removeprefix("execute_tool "))
    call_id = str(attrs.get(TOOL_CALL_ID) or result_id or args_id or "") or None
    error = str(attrs.get(ERROR_TYPE) or s.status_message or "error") if s.status == "ERROR" else None
    return _Span(name, raw is not None, args, result, call_id, error)


def _pair(spans: list[_Span], asked: list[Request]) -> list[Request | None]:
    """Each span's request: the one with its call id; then the one with the arguments the span recorded;
    then, for a span none matched, the first request of its tool's name that no span's id claims and no
    span took."""
    by_id = {r.call_id: i for i, r in enumerate(asked) if r.call_id}
    out: list[Request | None] = [None] * len(spans)
    taken: set[int] = set()
    for k, span in enumerate(spans):
        i = by_id.get(span.call_id) if span.call_id else None
        if i is not None and i not in taken:
            out[k] = asked[i]
            taken.add(i)
    for k, span in enumerate(spans):  # a span that recorded its arguments: the request that has them
        if out[k] is None and type(span.arguments) is dict:
            for i, r in enumerate(asked):
                if i not in taken and r.name == span.name and _model_arguments(r.arguments) == span.arguments:
                    out[k] = r
                    taken.add(i)
                    break
    claimed = {span.call_id for span in spans if span.call_id}
    for k, span in enumerate(spans):
        if out[k] is not None:
            continue
        for i, r in enumerate(asked):
            if i not in taken and r.name == span.name and not (r.call_id and r.call_id in claimed):
                out[k] = r
                taken.add(i)
                break
    return out


def _model_arguments(value: Any) -> dict[str, Any] | None:
    """The arguments the model wrote (JSON text or a value): never a framework's envelope."""
    value = parsed(value)
    return value if type(value) is dict else None


def _as_requested(tools: Sequence[SpanRecord], models: Sequence[SpanRecord]) -> Sequence[SpanRecord]:
    """Tool spans that ran at the same time (a model's parallel calls) in the order the model asked for
    them, by their call ids; spans that ran one after the other, as they ran."""
    if len(tools) < 2 or not models or all(a.end_ns <= b.start_ns for a, b in itertools.pairwise(tools)):
        return tools
    order = {r.call_id: i for i, r in enumerate(requests(models)) if r.call_id}
    ids = [str(t.attributes.get(TOOL_CALL_ID) or "") for t in tools]
    if not all(i in order for i in ids):
        return tools
    return [t for _, t in sorted(zip(ids, tools, strict=True), key=lambda p: order[p[0]])]


def earlier_calls(models: Sequence[SpanRecord]) -> list[ToolCall]:
    """The calls a trace's first model call read back after the customer's newest message, made before it
    in this turn but traced nowhere here (a stack that records one model call, the last): each with its
    result, and a result whose call is not there at all as a call of that result's tool. Marked `earlier`:
    ingest drops those another trace of the batch holds as its own calls."""
    from filon.tracing.history import calls_in  # which reads messages as this module does

    return calls_in(_this_turn(models[0].attributes.get(INPUT))) if models else []


def _from_requests(models: Sequence[SpanRecord], alone: bool) -> list[ToolCall]:
    """A stack with no tool spans: the calls the model asked for, each with the result read back (by call
    id, else by its tool's name), the earlier ones of a trace that is only model calls first."""
    before = earlier_calls(models) if alone else []
    read_back = {**_served(models), **(responses(models) if len(models) > 1 else {})}
    named = _by_name(models) if len(models) > 1 else {}
    used: dict[str, int] = {}
    out = []
    asked = requests(models)
    placed = by_position(models) if len(models) > 1 and any(r.call_id is None for r in asked) else []
    for i, r in enumerate(asked):
        result = None
        if r.call_id is None and named.get(r.name):  # no id: the next result of its tool's name
            result = envelopes.result(named[r.name].pop(0))[0]
        elif r.call_id is None and i < len(placed) and placed[i] is not None:  # nor a name: its place
            result = envelopes.result(placed[i])[0]
        elif r.call_id in read_back:
            n = used[r.call_id] = used.get(r.call_id, -1) + 1
            given = read_back[r.call_id]
            if n < len(given):
                result = envelopes.result(given[n])[0]
        args = _model_arguments(r.arguments) or {}
        out.append(ToolCall(r.name, args, result, None, r.arguments is not None, r.call_id))
    return [*before, *out] if before else out


def _placed(asked: list[Request], models: Sequence[SpanRecord]) -> dict[int, Any]:
    """`by_position`'s results by the `id` of the request each answers, looked for only where some request
    has no id (most stacks give every call one)."""
    if all(r.call_id is not None for r in asked):
        return {}
    return {id(r): found for r, found in zip(asked, by_position(models), strict=False) if found is not None}


def tool_calls(
    tools: Sequence[SpanRecord],
    models: Sequence[SpanRecord],
    alone: bool = False,
    run: SpanRecord | None = None,
    later_runs: Sequence[SpanRecord] = (),
) -> list[ToolCall]:
    """The turn's tool calls from its tool spans, else from the model's requests (`alone`: the trace has
    no agent span, its model calls are all there is of the turn: the calls its first one read back too);
    `run`, the agent span, whose input may hold the run's whole history (pydantic-ai): a result no model
    call read back is looked for there, by call id; `later_runs`, the runs after it in the same turn (the
    AI SDK's generateText calls one after the other), whose outputs ask for calls and inputs read results
    back, as the first run's do."""
    if not tools:
        if not models and run is not None:  # an agent run alone (pydantic-ai's all_messages): its history
            return earlier_calls([run])
        return _from_requests(models, alone)
    tools = _as_requested(tools, models)
    spans = []
    lacking = False
    for s in tools:
        span = _read(s)
        spans.append(span)
        lacking = lacking or type(span.arguments) is not dict or span.result is None
    if not (lacking and models):  # most turns: every span has its own arguments and result
        return [
            ToolCall(
                c.name,
                c.arguments if type(c.arguments) is dict else {},
                c.result,
                c.error,
                c.recorded,
                c.call_id,
            )
            for c in spans
        ]
    runs = [*([run] if run is not None else []), *later_runs]
    asked = requests([*models, *runs])
    paired = _pair(spans, asked)
    placed = _placed(asked, models)
    last = {key: found[-1] for key, found in responses(models).items()}
    if runs:
        last = {**answered(runs), **last}
    out = []
    for span, request in zip(spans, paired, strict=True):
        args, recorded, result = span.arguments, span.recorded, span.result
        if (
            type(args) is not dict
            and request is not None
            and (model_args := _model_arguments(request.arguments))
        ):
            args, recorded = model_args, True
        key = span.call_id or (request.call_id if request else None)
        if result is None and key is not None and key in last:
            result = envelopes.result(last[key])[0]
        elif result is None and key is None and request is not None and id(request) in placed:
            result = envelopes.result(placed[id(request)])[0]
        out.append(ToolCall(span.name, args if type(args) is dict else {}, result, span.error, recorded, key))
    return out


def answered(models: Sequence[SpanRecord]) -> dict[str, Any]:
    """Every result a model was given back in these calls' inputs, by call id, wherever in the history:
    for a call whose result only the next call read, in a trace of its own (a client loop with no parent
    span)."""
    out: dict[str, Any] = {}
    for s in models:
        for part in message_parts(s.attributes.get(INPUT)):
            if part.get("type") == "tool_call_response" and part.get("id"):
                out.setdefault(str(part["id"]), part.get("response", part.get("result")))
    return out
