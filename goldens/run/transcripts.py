"""The simulated conversations of a run, kept in the store like any traced conversation.

A simulation's turns were written by a model, not by the set: to see what the agent did at turn four,
the reviewer opens the conversation (`filon review --conversation ID`, `filon traces show ID`), read from
the same spans, by the same ingest path as production traffic, redacted the same way. They are dismissed at once, with the run's id as the reason: a reviewer opens
them from the report, the queue never hands them out as work.
"""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from filon.goldens.run.runner import RunOutput
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store, StoreError
from filon.miner.store.reviews import GATE


def store_transcripts(run: RunOutput) -> str:
    """The simulated conversations into the store, every one kept (sampling is for production traffic),
    redacted like any conversation: `filon review --conversation ID` and `filon traces show ID` open them."""
    records = [s for a in run.attempts for s in a.spans]
    if not records:
        return ""
    from filon.tracing.ingest import Ingestor
    from filon.tracing.redact import Redactor, load_secret, redaction_enabled

    try:
        store = Store.open()
        try:
            config = FlagConfig.load()
            redactor = Redactor(load_secret(), config.test_identities) if redaction_enabled() else None
            Ingestor(store, config, redactor, sample_rate=1.0).ingest(records)
            for conversation in sorted({a.conversation for a in run.attempts if a.spans and a.conversation}):
                # openable, never handed out: `c` in the review queue claims production conversations
                store.reviews.dismiss(conversation, GATE, f"conversation simulée (run {run.run_id})")
        finally:
            store.close()
    except (
        StoreError,
        ValueError,
        OSError,
        SQLAlchemyError,
    ) as exc:  # the gate's verdict never depends on it
        return f"simulated conversations not stored: {exc}"
    return ""
