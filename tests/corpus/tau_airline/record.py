"""How the tau-bench airline payloads were recorded (not run by the tests, which stay free of these stacks).

The public tau-bench repository (sierra-research/tau-bench, MIT) publishes the trajectories of GPT-4o as
an airline support agent: 50 tasks x 4 trials, each judged right or wrong by the benchmark (`reward`) from
the final database and the outputs the task required. This script replays trials as a team running that
agent would export them: a hand-written loop on the `openai` client (Chat Completions, one tool call at a
time, as the benchmark's agent), traced by OpenInference (`openinference-instrumentation-openai`), each
customer turn in an AGENT span of the app's own tracer carrying the session (`using_session`) and the
customer's message; the model is a loopback server answering, call after call, the assistant messages
the trial recorded, and each tool "runs" by returning the result the trial recorded. The SDK keeps its
default limits (128 attributes a span): a long conversation's LLM spans lose their oldest attributes
(`session.id`, `input.value`), as they do in production. No user id is set on the spans: the customer
gives it in the conversation, as in the benchmark. The customer's closing message (`###STOP###`), which
no agent answered, is not a turn.

Only the tasks given are read from the trajectories file, filtered before anything else: the work uses
tasks 0-24 (`task-00.pb.gz` … `task-24.pb.gz`; `trials-00-24.json.gz`: each trial's verdict and what
it said and did, turn by turn, from the trajectory, which the tests hold filon's reading to); tasks 25-49 are measured apart and are
never read by whoever changes filon.

In a throwaway venv (nothing of this enters filon's dependencies):

    python -m venv venv && venv/bin/pip install openai openinference-instrumentation-openai \
        opentelemetry-sdk opentelemetry-exporter-otlp-proto-common
    git clone https://github.com/sierra-research/tau-bench   # for the trajectories and the tool schemas
    venv/bin/python record.py tau-bench 0-24 .

Token usage is not in the trajectories: each reply reports its length in characters divided by four.
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

from openai import OpenAI
from openinference.instrumentation import using_session
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

MODEL = "gpt-4o-2024-08-06"


def tool_schemas(repo: Path) -> list[dict[str, Any]]:
    """The airline tools as the benchmark declares them to the model (each `get_info()`'s literal)."""
    out = []
    for path in sorted((repo / "tau_bench/envs/airline/tools").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "get_info":
                ret = next(n for n in ast.walk(node) if isinstance(n, ast.Return))
                out.append(ast.literal_eval(ret.value))
    return out


class Replay(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: the next assistant message of the trial being replayed."""

    queue: list[dict[str, Any]] = []
    calls = 0

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        message = Replay.queue.pop(0)
        Replay.calls += 1
        reply: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            reply["tool_calls"] = message["tool_calls"]
        prompt = sum(len(json.dumps(m)) for m in request["messages"]) // 4
        completion = len(json.dumps(reply)) // 4
        body = {
            "id": f"chatcmpl-replay{Replay.calls:06d}",
            "object": "chat.completion",
            "created": 1715785200,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": reply,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        raw = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def replay(client: OpenAI, tracer: Any, trial: dict[str, Any], tools: list[dict[str, Any]]) -> None:
    """One trial as one conversation: each customer message a turn, each assistant message a model call."""
    traj = trial["traj"]
    Replay.queue = [m for m in traj if m["role"] == "assistant"]
    session = f"tau-airline-{trial['task_id']:02d}-{trial['trial']}"
    messages: list[dict[str, Any]] = [traj[0]]  # the policy, as the system message
    i = 1
    with using_session(session):
        while i < len(traj):
            user = traj[i]
            assert user["role"] == "user", (session, i)
            i += 1
            if i >= len(traj):
                break  # the customer's closing message: nobody answered it
            messages.append({"role": "user", "content": user["content"]})
            attributes = {
                "openinference.span.kind": "AGENT",
                "input.value": user["content"],
                "session.id": session,
            }
            with tracer.start_as_current_span("support turn", attributes=attributes) as span:
                answer = ""
                while i < len(traj) and traj[i]["role"] == "assistant":
                    reply = client.chat.completions.create(
                        model="gpt-4o", messages=messages, tools=tools, temperature=0.0
                    )
                    message = reply.choices[0].message
                    messages.append(message.model_dump(exclude_none=True))
                    i += 1
                    if not message.tool_calls:
                        answer = message.content or ""
                        break
                    for call in message.tool_calls:
                        result = traj[i]
                        assert result["role"] == "tool" and result["tool_call_id"] == call.id, (session, i)
                        messages.append(
                            {"role": "tool", "tool_call_id": call.id, "content": result["content"]}
                        )
                        i += 1
                span.set_attribute("output.value", answer)
                span.set_status(Status(StatusCode.OK))
    assert not Replay.queue, session


def expected(trial: dict[str, Any]) -> list[dict[str, Any]]:
    """What the trial said and did, turn by turn, read from the trajectory itself (never from filon): the
    customer's message, each call with its arguments and result, the answer (the last text the model
    wrote in the turn, as filon's design reads a turn). A result no later model
    call read (the hand-over that ends a trial) is in no span: null."""
    traj, turns, i = trial["traj"], [], 1
    while i < len(traj) - 1:
        turn: dict[str, Any] = {"user": traj[i]["content"], "calls": [], "answer": ""}
        i += 1
        while i < len(traj) and traj[i]["role"] == "assistant":
            message = traj[i]
            i += 1
            if message.get("content"):  # the last text the model wrote in the turn, beside a call or not
                turn["answer"] = message["content"]
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                read = any(m["role"] == "assistant" for m in traj[i + 1 :])
                turn["calls"].append(
                    {
                        "name": call["function"]["name"],
                        "arguments": json.loads(call["function"]["arguments"]),
                        "result": traj[i]["content"] if read else None,
                    }
                )
                i += 1
        turns.append(turn)
    return turns


def main(repo: Path, tasks: str, out: Path) -> None:
    low, high = (int(x) for x in tasks.split("-"))
    raw = json.loads((repo / "historical_trajectories/gpt-4o-airline.json").read_text())
    trials = [t for t in raw if low <= t["task_id"] <= high]  # the other tasks are never looked at
    del raw
    tools = tool_schemas(repo)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = OpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="replay", max_retries=0)
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("airline-agent")
    verdicts = []
    for task in range(low, high + 1):
        memory.clear()
        for trial in sorted((t for t in trials if t["task_id"] == task), key=lambda t: t["trial"]):
            replay(client, tracer, trial, tools)
            verdicts.append(
                {
                    "task": task,
                    "trial": trial["trial"],
                    "conversation": f"tau-airline-{task:02d}-{trial['trial']}",
                    "reward": trial["reward"],
                    "turns": expected(trial),
                }
            )
        spans = memory.get_finished_spans()
        (out / f"task-{task:02d}.pb.gz").write_bytes(
            gzip.compress(encode_spans(spans).SerializeToString(), mtime=0)
        )
    stacks = ", ".join(
        f"{n} {version(n)}" for n in ("openai", "openinference-instrumentation-openai", "opentelemetry-sdk")
    )
    (out / f"trials-{low:02d}-{high:02d}.json.gz").write_bytes(
        gzip.compress(json.dumps({"recorded_with": stacks, "trials": verdicts}, indent=1).encode(), mtime=0)
    )
    print(len(verdicts), "trials recorded with", stacks)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
