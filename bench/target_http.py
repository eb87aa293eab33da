"""The gate on an agent behind HTTP: the example support desk served by uvicorn, its spans to the runner.

Two figures, side by side in one run:
1. Concurrency. The desk's set (repeated 4 times) through the HTTP target, the scripted model at 800 ms per
   call, --concurrency 8: the replay's wall time (from the report) against the ideal computed from
   nominal figures, the model calls made (counted by the model server) × the nominal 800 ms / 8 workers.
   Goal: at most 1.3.
2. The runner's own cost per turn. The same set with the model answering at once, one case at a time,
   through the HTTP target and through the Python target (the same desk in this process): the
   difference of wall time per turn is what HTTP, span export and the runner's span wait and matching
   add. The desk flushes its spans before replying, as its README says. Goal: at most 20 ms more.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DESK = REPO / "examples" / "support_desk"
sys.path.insert(0, str(REPO))

from filon.agent.scripted.server import ScriptedModel, ScriptedSettings  # noqa: E402
from filon.goldens.evaluate import EvalConfig, evaluate  # noqa: E402

LATENCY_MS = 800
CONCURRENCY = 8
REPEAT = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_desk(model_url: str, otlp_port: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {
        **os.environ,
        "DESK_MODEL_URL": model_url,
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{otlp_port}/v1/traces",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server:app", "--port", str(port), "--log-level", "warning"],
        cwd=DESK,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/chat"


def replay(
    target: str, tmp: Path, name: str, concurrency: int, repeat: int, otlp_port: int
) -> tuple[float, int]:
    """The replay's duration (set-up excluded) and the turns it played."""
    result = evaluate(
        EvalConfig(
            goldens=str(DESK / "goldens" / "cases"),
            target=target,
            otlp_port=otlp_port,
            concurrency=concurrency,
            repeat=repeat,
            report=tmp / f"{name}.json",
        )
    )
    assert result.report is not None, result.message
    assert result.report.errors.count == 0, result.report.errors
    turns = sum(len(a.latencies_ms) for c in result.report.cases for a in c.attempts)
    return result.report.execution.duration_s, turns


def main() -> None:
    os.chdir(DESK)  # its filon.toml: its tools, its escalation tool
    sys.path.insert(0, str(DESK))
    out: dict[str, float] = {"goal_wall_to_ideal_at_most": 1.3, "goal_runner_extra_ms_per_turn_at_most": 20}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        otlp = free_port()
        with ScriptedModel(ScriptedSettings(latency_ms=LATENCY_MS)) as slow:
            os.environ["DESK_MODEL_URL"] = slow.url
            desk, url = serve_desk(slow.url, otlp)
            try:
                wall, turns = replay(url, tmp, "slow", CONCURRENCY, REPEAT, otlp)
            finally:
                desk.terminate()
                desk.wait(10)
            calls = slow.requests
        ideal = calls * LATENCY_MS / 1000 / CONCURRENCY
        out.update(
            model_calls=calls,
            turns=turns,
            wall_s=round(wall, 3),
            ideal_s=round(ideal, 3),
            wall_to_ideal=round(wall / ideal, 3),
        )
        otlp = free_port()
        with ScriptedModel(ScriptedSettings()) as fast:
            os.environ["DESK_MODEL_URL"] = fast.url
            desk, url = serve_desk(fast.url, otlp)
            try:
                replay(url, tmp, "warm-up", 1, 1, otlp)
                http_s, http_turns = replay(url, tmp, "http", 1, 2, otlp)
            finally:
                desk.terminate()
                desk.wait(10)
            replay("python:desk:answer", tmp, "warm-up-python", 1, 1, otlp)
            python_s, python_turns = replay("python:desk:answer", tmp, "python", 1, 2, otlp)
        http_ms, python_ms = http_s / http_turns * 1000, python_s / python_turns * 1000
        out.update(
            http_ms_per_turn=round(http_ms, 2),
            python_ms_per_turn=round(python_ms, 2),
            runner_extra_ms_per_turn=round(http_ms - python_ms, 2),
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
