"""The scripted model must never dominate a benchmark: generateContent requests per second on loopback.

Side by side in one run: the scripted model, and a bare stdlib HTTP server answering a fixed JSON body
(the floor of what Python's HTTP stack can do here). Goal: at least 500 requests/s at zero latency.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from filon.agent.scripted import ScriptedModel

REQUESTS = 2000
CLIENTS = 4
BODY = json.dumps(
    {
        "contents": [{"role": "user", "parts": [{"text": "Quels sont les frais de livraison ?"}]}],
        "tools": [{"functionDeclarations": [{"name": "rechercher_aide"}]}],
    }
).encode()


class _Fixed(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall
    payload = json.dumps({"candidates": [{"content": {"parts": [{"text": "ok"}]}}]}).encode()

    def log_message(self, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload)


def rate(url: str) -> float:
    path = url + "/v1beta/models/scripted:generateContent"

    def worker(n: int) -> None:
        with httpx.Client() as client:
            for _ in range(n):
                client.post(
                    path, content=BODY, headers={"Content-Type": "application/json"}
                ).raise_for_status()

    start = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(worker, [REQUESTS // CLIENTS] * CLIENTS))
    return REQUESTS / (time.perf_counter() - start)


def main() -> None:
    baseline = ThreadingHTTPServer(("127.0.0.1", 0), _Fixed)
    baseline.daemon_threads = True
    threading.Thread(target=baseline.serve_forever, daemon=True).start()
    base_rps = rate(f"http://127.0.0.1:{baseline.server_address[1]}")
    baseline.shutdown()
    with ScriptedModel() as model:
        scripted_rps = rate(model.url)
    print(
        json.dumps(
            {
                "scripted_requests_per_s": round(scripted_rps),
                "bare_http_requests_per_s": round(base_rps),
                "ratio_scripted_to_bare_http": round(scripted_rps / base_rps, 3),
                "goal_requests_per_s": 500,
                "meets_goal": scripted_rps >= 500,
            }
        )
    )


if __name__ == "__main__":
    main()
