"""How the turn went for the customer: slow, or said to have gone badly."""

from __future__ import annotations

from filon.miner.core.causes import cause
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.corrections import CUSTOMER_CORRECTED, corrected
from filon.miner.rules.registry import detector

SLOW_TURN = cause(
    "slow_turn",
    FlagKind.LATENCY,
    Severity.LOW,
    "slow is annoying but rarely changes what the customer was told",
)
NEGATIVE_FEEDBACK = cause(
    "negative_feedback",
    FlagKind.FEEDBACK,
    Severity.MEDIUM,
    "the customer said it went badly: often the policy, not the agent, so not above a failure",
)


@detector("latency", rank=110, causes=(SLOW_TURN,))
def latency(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    return [
        Flag.of(
            SLOW_TURN,
            i,
            said("flag.slow_turn", ms=t.latency_ms, threshold=cfg.latency_ms),
            t.trace_id,
        )
        for i, t in enumerate(conv.turns)
        if t.latency_ms > cfg.latency_ms
    ]


@detector("feedback", rank=120, causes=(NEGATIVE_FEEDBACK, CUSTOMER_CORRECTED))
def feedback(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """What the customer said of the answers: a negative score on a turn, or words that correct it."""
    scored = [
        Flag.of(NEGATIVE_FEEDBACK, i, said("flag.negative_feedback", score=t.feedback), t.trace_id)
        for i, t in enumerate(conv.turns)
        if t.feedback is not None and t.feedback < 0
    ]
    return scored + corrected(conv)
