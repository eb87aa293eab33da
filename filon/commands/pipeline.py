"""Traffic into the store: filon's tracing set up, simulated customers, flush, and a summary from the store."""

from __future__ import annotations

import random
from dataclasses import dataclass

from rich.console import Console

from filon.commands.common import progress_bar, say, told


@dataclass
class TrafficRun:
    conversations: int
    backend: str = "scripted"
    prompt: str | None = None
    seed: int | None = None
    concurrency: int = 4
    sample_rate: float | None = None
    escalation_tools: list[str] | None = None
    model: str | None = None
    model_url: str | None = None
    label: str = "traffic"  # the web conversations' ids: LABEL-SEED-N


class Summary(list[str]):
    """The lines to print, and whether ctrl-C cut the run short."""

    interrupted: bool = False


def run_traffic_into_store(run: TrafficRun, console: Console, label: str = "traffic") -> Summary:

    from filon.agent.model import open_backend
    from filon.agent.prompts import load_prompt
    from filon.agent.traffic import TrafficResult, run_traffic
    from filon.tracing.setup import setup_tracing

    prompt = load_prompt(run.prompt)
    tracing = setup_tracing(sample_rate=run.sample_rate, escalation_tools=run.escalation_tools)
    seed = run.seed if run.seed is not None else random.randrange(1_000_000)
    result = TrafficResult()
    try:
        try:
            with open_backend(run.backend, run.model, run.model_url) as backend:
                if backend.scripted:
                    console.print(f"[yellow]{told(backend.banner)}[/]")
                progress = progress_bar(label, on=console, elapsed=True)
                task = progress.add_task(label, total=run.conversations)
                with progress:
                    result = run_traffic(
                        backend,
                        prompt,
                        run.conversations,
                        seed,
                        run.concurrency,
                        lambda _s: progress.advance(task),
                        label=run.label,
                    )
        except KeyboardInterrupt:  # before the customers were under way (after, run_traffic stops cleanly)
            result.interrupted = True
        tracing.flush()  # what was done is stored, interrupted or not
    finally:
        tracing.shutdown()
    c = tracing.counters
    stored = c.stored
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(stored.flag_kinds.items())) or say("cli.none")
    done = {"done": result.conversations, "asked": run.conversations}
    stopped = say("cli.traffic_interrupted", **done) if result.interrupted else ""
    ran = {"conversations": result.conversations, "turns": result.turns, "failed": result.errors}
    kept = {"kept": c.traces_kept, "sampled": c.traces_sampled_out, "dropped": c.spans_dropped}
    summary = Summary(
        [
            say("cli.traffic_done", label=label, stopped=stopped, **ran, prompt=prompt.path, seed=seed),
            say("cli.traffic_kept", **kept, kinds=kinds),
        ]
    )
    summary.interrupted = result.interrupted
    return summary
