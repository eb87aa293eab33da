"""The sampling decision, shared by the tail sampler and `filon ingest --sample-rate`.

Conversation-aware: the hash of the conversation id decides, so a sampled conversation keeps every turn.
"""

from __future__ import annotations

import hashlib

from filon.miner.settings import settings


def sampled(conversation_id: str, rate: float) -> bool:
    if rate >= 1:
        return True
    if rate <= 0:
        return False
    digest = hashlib.sha256(conversation_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


def rate_from_env(default: float = 0.1) -> float:
    """FILON_SAMPLE_RATE (`miner.settings`), or `default`; `ValueError` naming it when it does not parse."""
    rate = settings().sample_rate
    return default if rate is None else rate
