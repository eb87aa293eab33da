"""The reference support agent under observation: "Lin & Laine", a French e-commerce shop.

It is instrumented through the OpenTelemetry API only, as any real agent is; whoever runs it sets
tracing up. Nothing here imports the rest of filon.
"""

from filon.agent.service import Conversation, Reponse, SupportService

__all__ = ["Conversation", "Reponse", "SupportService"]
