"""The sampling decision, shared by the tail sampler and `filon ingest --sample-rate`.

Conversation-aware: the hash of the conversation id decides, so a sampled conversation keeps every turn.
"""

from __future__ import annotations

import hashlib
import os


def sampled(conversation_id: str, rate: float) -> bool:
    if rate >= 1:
        return True
    if rate <= 0:
        return False
    digest = hashlib.sha256(conversation_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


def rate_from_env(default: float = 0.1) -> float:
    raw = os.environ.get("FILON_SAMPLE_RATE")
    if raw is None or raw == "":
        return default
    try:
        rate = float(raw)
    except ValueError as exc:
        raise ValueError(f"FILON_SAMPLE_RATE: {raw!r} is not a number") from exc
    if not 0 <= rate <= 1:
        raise ValueError(f"FILON_SAMPLE_RATE: {rate} is not between 0 and 1")
    return rate
