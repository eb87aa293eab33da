"""Migration 14: the traces stored but not read yet (`pending_traces`), for flags off the acknowledgement path.

A receiver that defers its reading (`filon serve`'s default) answers 200 once a batch's spans are
redacted and committed, and only notes their trace ids here; a worker then reads them as turns and
conversations and flags them (`tracing.settle`). What waits here is the queue's lag, which `db stats` and
the review TUI show: its size and its oldest arrival. A span arriving while its trace is read moves `last_ns`,
and the worker then leaves the trace waiting, to be read again with it."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "traces waiting to be read"

apply = statements(
    "CREATE TABLE pending_traces (trace_id VARCHAR NOT NULL, received_ns BIGINT NOT NULL, last_ns BIGINT NOT NULL,"
    " PRIMARY KEY (trace_id))",
    "CREATE INDEX ix_pending_traces_received_ns ON pending_traces (received_ns)",
)
