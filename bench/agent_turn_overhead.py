"""The agent's own time per turn, model latency excluded, as a ratio to one bare generate_content call.

Side by side in one run, on the scripted model at zero latency: a bare `client.models.generate_content`
call, and a `SupportService.repondre` FAQ turn (two model calls, one tool, two spans). The agent's own
cost is the turn minus its model calls, each valued at the bare call's time.
"""

from __future__ import annotations

import json
import statistics
import time

from filon.agent import Conversation, SupportService
from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.agent.scripted import ScriptedModel

ROUNDS = 300


def main() -> None:
    with ScriptedModel() as model:
        client = scripted_client(model.url)
        service = SupportService(client, SCRIPTED_MODEL)
        bare, turns = [], []
        for i in range(ROUNDS):
            start = time.perf_counter()
            client.models.generate_content(
                model=SCRIPTED_MODEL, contents="Quels sont les frais de livraison ?"
            )
            bare.append(time.perf_counter() - start)
            before = model.requests
            start = time.perf_counter()
            service.repondre(Conversation.web(f"bench-{i}"), "Quels sont les frais de livraison ?")
            turns.append(time.perf_counter() - start)
            calls = model.requests - before
    bare_ms = statistics.median(bare) * 1000
    turn_ms = statistics.median(turns) * 1000
    own_ms = max(0.0, turn_ms - calls * bare_ms)
    print(
        json.dumps(
            {
                "bare_generate_content_ms": round(bare_ms, 3),
                "turn_ms": round(turn_ms, 3),
                "model_calls_per_turn": calls,
                "agent_own_ms_per_turn": round(own_ms, 3),
                "ratio_agent_own_to_bare_call": round(own_ms / bare_ms, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
