"""The FAQ and the CGV, and the search behind the `rechercher_aide` tool."""

from filon.agent.knowledge.search import Passage, passages, search

__all__ = ["Passage", "passages", "search"]
