"""Retries and a circuit breaker for the eval runner, as an httpx transport under `google-genai`.

Quota errors (429) and overloads (503, other 5xx, timeouts) are infrastructure, not quality: each request
is retried with exponential backoff and full jitter, honouring `Retry-After` (capped). A circuit breaker
shared by the whole run opens after a run of consecutive failed responses, so a quota storm ends a run
in seconds instead of burning the quota on every case's retries. Time spent backing off is counted per
thread so the runner can leave it out of the latency it reports.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

import httpx

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class CircuitOpen(httpx.TransportError):
    """The breaker is open: the request was not sent."""


@dataclass
class RetryPolicy:
    retries: int = 3
    base_s: float = 0.5
    max_s: float = 8.0
    breaker_after: int = 8  # consecutive failed responses that open the circuit


class CircuitBreaker:
    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self._consecutive = 0
        self._open = False
        self._lock = threading.Lock()

    @property
    def open(self) -> bool:
        return self._open

    def record(self, ok: bool) -> None:
        with self._lock:
            self._consecutive = 0 if ok else self._consecutive + 1
            if self._consecutive >= self.threshold:
                self._open = True


_backoff = threading.local()


def backoff_seconds() -> float:
    """Seconds this thread has spent backing off so far (read before and after a turn)."""
    return float(getattr(_backoff, "total", 0.0))


def _sleep(seconds: float) -> None:
    _backoff.total = backoff_seconds() + seconds
    time.sleep(seconds)


class RetryTransport(httpx.BaseTransport):
    def __init__(self, policy: RetryPolicy | None = None, inner: httpx.BaseTransport | None = None) -> None:
        self.policy = policy or RetryPolicy()
        self.breaker = CircuitBreaker(self.policy.breaker_after)
        self.inner = inner or httpx.HTTPTransport()
        self.retried = 0
        self._rng = random.Random()

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        header = response.headers.get("Retry-After") if response is not None else None
        if header:
            try:
                return min(self.policy.max_s, max(0.0, float(header)))
            except ValueError:
                pass
        ceiling = min(self.policy.max_s, self.policy.base_s * (2**attempt))
        return self._rng.uniform(0, ceiling)  # full jitter: replicas do not retry in step

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            if self.breaker.open:
                raise CircuitOpen(
                    "circuit breaker open: the model kept failing, request not sent", request=request
                )
            response: httpx.Response | None = None
            try:
                response = self.inner.handle_request(request)
            except (httpx.TimeoutException, httpx.NetworkError):
                self.breaker.record(ok=False)
                if attempt >= self.policy.retries:
                    raise
            else:
                if response.status_code not in RETRY_STATUS:
                    self.breaker.record(ok=True)
                    return response
                self.breaker.record(ok=False)
                if attempt >= self.policy.retries or self.breaker.open:
                    return response
                response.read()
                response.close()
            self.retried += 1
            _sleep(self._delay(attempt, response))
            attempt += 1

    def close(self) -> None:
        self.inner.close()
