"""Live traffic: simulated customers talking to the agent, concurrently, as production would.

Tracing is the caller's business (as for any agent): `filon traffic` sets filon's tracing up first, so
every turn here goes through the real pipeline. A model error ends that conversation and is counted;
its spans carry the error for the miner to flag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from filon.agent.customers import Customers, Script
from filon.agent.model import Backend
from filon.agent.prompts import Prompt
from filon.agent.service import Conversation, SupportService


@dataclass
class TrafficResult:
    conversations: int = 0
    turns: int = 0
    errors: int = 0
    personas: Counter[str] = field(default_factory=Counter)
    error_kinds: Counter[str] = field(default_factory=Counter)
    interrupted: bool = False


def run_traffic(
    backend: Backend,
    prompt: Prompt,
    conversations: int,
    seed: int = 0,
    concurrency: int = 4,
    on_done: Callable[[Script], None] | None = None,
    service: SupportService | None = None,
    scripts: list[Script] | None = None,
    label: str = "traffic",
) -> TrafficResult:
    """`conversations` simulated customers of `seed`, or the `scripts` given (a labelled corpus)."""
    service = service or SupportService(backend.client, backend.model, prompt)
    scripts = scripts if scripts is not None else Customers(seed, label).scripts(conversations)
    result = TrafficResult()

    def talk(script: Script) -> tuple[Script, int, str | None]:
        conversation = Conversation(script.canal, script.cle)
        turns = 0
        try:
            for message in script.messages:
                service.repondre(conversation, message)
                turns += 1
        except Exception as exc:  # the agent failed this turn (quota, overload): counted, traffic goes on
            return script, turns, type(exc).__name__
        finally:
            if on_done:
                on_done(script)
        return script, turns, None

    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        for future in as_completed([pool.submit(talk, s) for s in scripts]):
            script, turns, error = future.result()
            result.conversations += 1
            result.turns += turns
            result.personas[script.persona] += 1
            if error:
                result.errors += 1
                result.error_kinds[error] += 1
    except KeyboardInterrupt:  # ctrl-C: conversations under way end, the others never start
        result.interrupted = True
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        pool.shutdown(wait=True)
    return result
