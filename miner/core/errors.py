"""The store's error, in a module of its own so that the CLI's entry point can catch it without
importing the store (SQLModel and the drivers) for every command."""

from __future__ import annotations

from filon.miner.core.messages import Lang, SaidError


class StoreError(SaidError, RuntimeError):
    """The store cannot be opened or written; the message says which URL and why."""

    spoken_in: Lang = "en"
