"""The scripted model's HTTP server: `POST /v1beta/models/{model}:generateContent` (and `/v1/`, which
google-genai 3.x calls by default), Gemini's JSON shapes.

Reached through `google-genai` with `HttpOptions(base_url=...)`, so the agent cannot tell it from the
real API. Faults use Gemini's error JSON (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`) so the SDK raises its real
`ClientError` / `ServerError`. Its `modelVersion` starts with `scripted-`: it is a stand-in, and says so.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from filon.agent.scripted.brain import Brain, Decision, parse
from filon.agent.scripted.embeddings import embed
from filon.agent.scripted.english import decide as decide_in_english
from filon.agent.scripted.english import is_english as english_customer
from filon.agent.scripted.judge import is_judge_request, judge
from filon.agent.scripted.paraphrase import Paraphraser
from filon.agent.scripted.simulated_customer import customer, is_customer_request
from filon.miner.core.messages import Refusal, said

PATH = re.compile(r"^/v1(?:beta)?/models/([^/:]+):(generateContent|embedContent|batchEmbedContents)$")
VERSION = "scripted-1"


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise Refusal(said("err.scripted.not_number", name=name, value=repr(value))) from exc


def _env_bool(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass
class ScriptedSettings:
    seed: int = 0
    latency_ms: float = 0.0
    rate_429: float = 0.0
    rate_503: float = 0.0
    noise: float = 0.0
    retry_after_s: int = 1
    paraphrase: bool = False  # reword answers instead of quoting the FAQ/CGV (deterministic per seed)
    judge_garble: bool = False  # the judge answers in prose, not JSON: the unparsable judge of the tests

    @classmethod
    def from_env(cls, **overrides: Any) -> ScriptedSettings:
        """Settings from FILON_SCRIPTED_* variables; explicit (non-None) overrides win."""
        base = cls(
            seed=int(_env_float("FILON_SCRIPTED_SEED", 0)),
            latency_ms=_env_float("FILON_SCRIPTED_LATENCY_MS", 0.0),
            rate_429=_env_float("FILON_SCRIPTED_429_RATE", 0.0),
            rate_503=_env_float("FILON_SCRIPTED_503_RATE", 0.0),
            noise=_env_float("FILON_SCRIPTED_NOISE", 0.0),
            paraphrase=_env_bool("FILON_SCRIPTED_PARAPHRASE"),
            judge_garble=_env_bool("FILON_SCRIPTED_JUDGE_GARBLE"),
        )
        for key, value in overrides.items():
            if value is not None:
                setattr(base, key, value)
        for name in ("rate_429", "rate_503", "noise"):
            if not 0.0 <= getattr(base, name) <= 1.0:
                raise Refusal(said("err.scripted.not_rate", name=name, value=getattr(base, name)))
        if base.latency_ms < 0:
            raise Refusal(said("err.scripted.negative", name="latency_ms", value=base.latency_ms))
        return base


def _pairs(value: Any, key: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """A result's plain values with their keys, nested ones included (three levels)."""
    if isinstance(value, dict) and depth < 3:
        return [p for k, v in value.items() for p in _pairs(v, str(k), depth + 1)]
    if isinstance(value, list) and depth < 3:
        return [p for v in value for p in _pairs(v, key, depth + 1)]
    if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value):
        return [(key, str(value))]
    return []


def _values(result: dict[str, Any]) -> list[str]:
    return [v for _, v in _pairs(result) if len(v) > 2]


def summary(result: dict[str, Any], english: bool = False) -> str:
    """An answer from a tool result of another agent's tools (the brain knows the reference tools'
    fields only): its plain values, quoted as they are; a search's passages by their text alone."""
    passages = result.get("passages") if isinstance(result, dict) else None
    if isinstance(passages, list) and passages:
        said = [
            str(p.get("texte") or p.get("text") or "") if isinstance(p, dict) else str(p) for p in passages
        ]
        said = [s for s in said if s][:2]
    else:
        colon = ": " if english else " : "
        said = [f"{k}{colon}{v}" if k else v for k, v in _pairs(result)]
    if not said:  # an empty search, a result with nothing in it: said so, never its bare JSON
        return (
            "I found nothing on that in our help pages."
            if english
            else "Je n'ai rien trouvé à ce sujet dans notre aide."
        )
    lead = "Here is what I found: " if english else "Voici ce que j'ai trouvé : "
    return lead + "; ".join(said) + "."


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def reply(model: str, body: dict[str, Any], part: dict[str, Any], out_text: str) -> dict[str, Any]:
    """A `GenerateContentResponse` carrying one part, with token counts estimated from the request and
    the part's text; its `modelVersion` says it is the stand-in."""
    prompt_tokens = estimate_tokens(json.dumps(body, ensure_ascii=False))
    out_tokens = estimate_tokens(out_text)
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": out_tokens,
            "totalTokenCount": prompt_tokens + out_tokens,
        },
        "modelVersion": f"{VERSION}-{model}" if not model.startswith("scripted") else model,
        "responseId": f"scripted-{abs(hash(out_text)) % 10**12}",
    }


def text_reply(model: str, body: dict[str, Any], text: str) -> dict[str, Any]:
    """One text part: the judge's verdict, the simulated customer's message."""
    return reply(model, body, {"text": text}, text)


MAX_EMBEDDINGS = 100  # texts per `batchEmbedContents`: the Gemini API's limit


def embeddings(body: dict[str, Any], method: str) -> dict[str, Any]:
    """`embedContent` (one content) or `batchEmbedContents` (`requests`, one content each)."""

    def text(content: dict[str, Any]) -> str:
        return " ".join(str(p.get("text", "")) for p in content.get("parts") or [])

    if method == "embedContent":
        return {"embedding": {"values": embed(text(body.get("content") or {}))}}
    requests = body.get("requests") or []
    return {"embeddings": [{"values": embed(text(r.get("content") or {}))} for r in requests]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests and demos read stdout
        return

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, reason: str, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, {"error": {"code": status, "message": message, "status": reason}}, headers)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/health":
            self._send(200, {"status": "ok", "modelVersion": VERSION, "stand_in": True})
        else:
            self._error(404, "NOT_FOUND", f"no route for GET {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        match = PATH.match(self.path.split("?", 1)[0])
        if not match:
            self._error(
                404, "NOT_FOUND", f"the scripted model serves generateContent and embeddings, not {self.path}"
            )
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError as exc:
            self._error(400, "INVALID_ARGUMENT", f"invalid JSON payload: {exc}")
            return
        if not isinstance(body, dict):
            self._error(400, "INVALID_ARGUMENT", "invalid JSON payload: the body is not a JSON object")
            return
        try:
            self.server.model.handle(self, match.group(1), body, match.group(2))
        except Exception as exc:  # a shape the stand-in cannot read: a JSON error, never a dropped connection
            self._error(400, "INVALID_ARGUMENT", f"the scripted model cannot read this request: {exc!r}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    model: ScriptedModel


class ScriptedModel:
    """Run with `start()` (background thread) or `serve_forever()`; use as a context manager in tests."""

    def __init__(self, settings: ScriptedSettings | None = None, host: str = "127.0.0.1", port: int = 0):
        self.settings = settings or ScriptedSettings()
        self._rng = random.Random(self.settings.seed)
        self._lock = threading.Lock()
        self.requests = 0
        self.faults = 0
        self._httpd = _Server((host, port), _Handler)
        self._httpd.model = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def _draw(self) -> tuple[float, float, random.Random]:
        """One draw from the seeded sequence: fault roll, latency, and a generator for noise."""
        with self._lock:
            self.requests += 1
            roll = self._rng.random()
            spread = self._rng.gauss(0, 0.25)
            noise_rng = random.Random(self._rng.getrandbits(64))
        latency = max(0.0, self.settings.latency_ms * (1 + spread)) / 1000
        return roll, latency, noise_rng

    def handle(
        self, handler: _Handler, model: str, body: dict[str, Any], method: str = "generateContent"
    ) -> None:
        roll, latency, noise_rng = self._draw()
        if latency:
            time.sleep(latency)
        s = self.settings
        retry = {"Retry-After": str(s.retry_after_s)}
        if roll < s.rate_429:
            with self._lock:
                self.faults += 1
            handler._error(
                429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", retry
            )
            return
        if roll < s.rate_429 + s.rate_503:
            with self._lock:
                self.faults += 1
            handler._error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", retry)
            return
        if method != "generateContent":
            asked = len(body.get("requests") or [])
            if asked > MAX_EMBEDDINGS:  # as the Gemini API refuses it
                handler._error(
                    400, "INVALID_ARGUMENT", f"at most {MAX_EMBEDDINGS} requests are allowed in a batch"
                )
                return
            handler._send(200, embeddings(body, method))
            return
        if is_customer_request(body):
            handler._send(200, text_reply(model, body, json.dumps(customer(body), ensure_ascii=False)))
            return
        if is_judge_request(body):
            verdict = json.dumps(judge(body), ensure_ascii=False)
            if s.judge_garble:
                verdict = "Je donnerais volontiers 4 sur 5 à cette réponse."
            handler._send(200, text_reply(model, body, verdict))
            return
        paraphrase = Paraphraser(s.seed) if s.paraphrase else None
        handler._send(200, self.respond(model, body, Brain(s.noise, noise_rng, paraphrase)))

    @staticmethod
    def respond(model: str, body: dict[str, Any], brain: Brain | None = None) -> dict[str, Any]:
        """The `GenerateContentResponse` JSON for one request (pure apart from the brain's noise)."""
        turn = parse(body)
        last = turn.results[-1] if turn.results else None
        foreign = last is not None and last[0] in turn.vocabulary.aliases  # a result in the agent's own shape
        english = english_customer(turn.user_texts)  # answered in English, with the agent's tools
        broken = False
        try:
            decision = decide_in_english(turn) if english else (brain or Brain()).decide(turn)
        except (KeyError, TypeError, ValueError, AttributeError):
            if not foreign:
                raise
            decision, broken = Decision(), True
        if english and not decision.call and not decision.text and last is not None:
            decision = Decision(text=summary(last[1], english=True))
        # the brain wrote its answer from fields the agent's result does not have (it quotes none of its
        # values, or says None): the values instead; a refusal to say them stays as it is
        if foreign and last is not None and not decision.call and not decision.withholds:
            values = _values(last[1])
            broken = (
                broken
                or "None" in decision.text
                or bool(values and not any(v in decision.text for v in values))
            )
        if foreign and broken and last is not None and not decision.call:
            handed = last[0] == "transferer_a_un_conseiller"
            passing = (
                "I'm passing your request to a colleague. "
                if english
                else "Je transmets votre demande à un conseiller. "
            )
            lead = passing if handed else ""
            decision = Decision(text=lead + summary(last[1], english))
        if decision.call:
            name, args = turn.vocabulary.call_for(*decision.call)
            part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
            out_text = json.dumps(part)
        else:
            part = {"text": decision.text}
            out_text = decision.text
        return reply(model, body, part, out_text)

    def start(self) -> ScriptedModel:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-model", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModel:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()
