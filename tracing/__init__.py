"""tracing room."""
