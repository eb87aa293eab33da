"""What every repository of the store holds: its engine. The `Store` (`miner.store.api`) holds one of
each as an attribute (`store.traces`, `store.groups`, `store.reviews`, `store.incidents`), each its own
job, none knowing the others."""

from __future__ import annotations

from sqlalchemy import Engine


class Repository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
