"""The scripted stand-in for Gemini: a local HTTP server speaking the `generateContent` subset the agent uses.

It is deterministic for a seed, decides by French keywords, and reproduces the seeds' incident when the
system prompt lacks the identity rule. It is a stand-in for demos, tests and benchmarks, never a model.
"""

from filon.agent.scripted.server import ScriptedModel, ScriptedSettings

__all__ = ["ScriptedModel", "ScriptedSettings"]
