"""The miner's domain types, which every other room reads and none of them owns.

A conversation and its turns as the store hands them out (`model`), every cause a flag can have (`causes`), its kind and severity and
the queue's order (`severity`), the transcript the gate grades (`transcript`), a tool's result as the agent
saw it (`results`), JSON text in the store (`jsontext`), the store's one error (`errors`), untrusted
span text made safe to show (`untrusted`, `render`), and what filon says to people as codes rendered in
French or English from one catalogue (`messages`, `messages.toml`). Nothing here reads the database, a setting or an
answer's words: the core imports nothing else of filon.
"""

from filon.miner.core.causes import CAUSES, CauseDef, cause
from filon.miner.core.errors import StoreError
from filon.miner.core.model import Conversation, Flag, ToolCall, Turn
from filon.miner.core.severity import FlagKind, ReviewStatus, Severity

__all__ = [
    "CAUSES",
    "Cause",
    "CauseDef",
    "Conversation",
    "Flag",
    "FlagKind",
    "ReviewStatus",
    "Severity",
    "StoreError",
    "ToolCall",
    "Turn",
    "cause",
]
