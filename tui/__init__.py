"""tui room."""
