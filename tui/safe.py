"""The TUI's access to the one way untrusted trace text is shown (`miner.untrusted`), also used by the CLI."""

from filon.miner.untrusted import clean, line, literal

__all__ = ["clean", "line", "literal"]
