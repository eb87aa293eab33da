"""Tracing for an agent process: set-up, conversation-aware tail sampling, and the one ingest path."""
