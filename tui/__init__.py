"""The review TUI (Textual): queue → conversation → case editor, and the failures of the last eval."""
