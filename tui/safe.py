"""The TUI's access to the one way untrusted trace text is shown (`miner.core.untrusted`), also used by the CLI."""

from filon.miner.core.untrusted import clean, line, literal

__all__ = ["clean", "line", "literal"]
