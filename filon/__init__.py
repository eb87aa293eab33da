"""filon: mine an LLM support agent's production traces into a golden set, and gate CI on it."""

__version__ = "0.1.0"
