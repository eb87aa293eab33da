"""One measured step of `instruction_ratios.py`, run in a process of its own under callgrind.

`python bench/_instr_child.py [--turns=N] STEP SOURCE FOLDER [--setup]`: STEP is `ingest`, `ingest_full`
(every rule of the rulebook flagging production), `accept` (a deferred receiver's acknowledgement path),
`settle_full` (its worker's reading of the accepted spans, every rule on), `redact` (redaction alone),
`decode` (OTLP protobuf requests decoded, as `filon serve`'s receiver does),
`raw` (`executemany` of the rows an ingest wrote, read from FOLDER/rows.db), `flags` (the flag rules alone over the same
conversations), `flags_full` (the same, every rule on) or `flags_again_full` (every rule, each conversation
flagged again at each of its turns, as ingest reads a live one); SOURCE `minimal`,
`agent` or `tau`. With `--setup` the step does everything but the work it measures (imports, the spans built,
the store opened, the rows read), so that the work's instructions are the difference of two runs. It
prints the CPU time (user and system: `time.process_time`) its work took, the system calls included.
With `--warm`, both runs first do the step's work on other spans (`warm_spans`): what a process pays once
is then in neither, and the difference is the steady cost of the work, as a running receiver pays it.
"""

from __future__ import annotations

import json
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from _agent_spans import agent_traffic
from _spans import traffic
from _tau_spans import FOLDER, tau_traffic
from ingest_throughput import BATCH, full_rulebook, insert_raw, raw_target

from filon.miner.core.model import Conversation
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store
from filon.tracing.files import read_otlp_file
from filon.tracing.ingest import Ingestor
from filon.tracing.records import batched
from filon.tracing.redact import Redactor
from filon.tracing.settle import accept, settle_all

TURNS = [400]  # `--turns=N` from `instruction_ratios.py`
CPU = [0.0]  # the process's CPU time (user and system) spent in the measured work


TAU_TASKS = 5  # real-shaped spans: 20 conversations, 443 spans of about 31 KB of attributes each


def spans_of(source: str) -> list[Any]:
    """The spans a step works on: `minimal` and `agent` as many turns as asked, `tau` the first tasks of
    the tau-bench corpus (GPT-4o through OpenInference: the whole history on every LLM span)."""
    if source == "tau":
        return tau_traffic(TAU_TASKS)
    return (traffic if source == "minimal" else agent_traffic)(TURNS[0])


def warm_spans(source: str) -> list[Any]:
    """Spans of another kind than the measured ones, for `--warm`: what a process pays once (compiling
    its patterns, building its tables) is paid on them, in the setup run as in the work run."""
    if source == "tau":
        return [r for path in sorted(FOLDER.glob("task-*.pb.gz"))[-1:] for r in read_otlp_file(path)]
    return agent_traffic(8) if source == "minimal" else traffic(8)


def warm_up(source: str, folder: Path, config: FlagConfig | None) -> None:
    """The step's work once on `warm_spans`, in a store of its own; and the flag rules on the last
    tau-bench task's conversations too (for `tau`, already its warm spans): the minimal spans state no
    rule and no figure, so that without them what the rules build once (their patterns compiled, the
    help texts folded: 114 M of the agent's 1,116 M flag-rule instructions, 2026-12-07) was counted as
    work."""
    from filon.miner.rules.flags import flag_conversation
    from filon.tracing.grouping import by_trace, turn_of

    db = folder / "warm.db"
    db.unlink(missing_ok=True)
    store = Store.open(f"sqlite:///{db}")
    records = warm_spans(source)
    Ingestor(store, config=config, redactor=Redactor(b"warm")).ingest(records)
    store.close()
    cfg = config or FlagConfig()
    read = records if source == "tau" else [*records, *warm_spans("tau")]
    for spans in by_trace(read).values():
        seen = turn_of(spans, cfg.escalation_tools)
        flag_conversation(Conversation(seen.conversation_id, seen.channel, [seen.turn]), cfg)


def ingest(
    source: str, folder: Path, setup: bool, config: FlagConfig | None, name: str, defer: bool = False
) -> None:
    """Inline ingest; with `defer`, the acknowledgement path of a deferred receiver
    (`tracing.settle.accept`: the spans redacted, written and noted as waiting; no rule runs on it, so
    its cost is the same whatever the rulebook)."""
    records = spans_of(source)
    db = folder / f"{name}{'-setup' if setup else ''}.db"  # the work's rows stay for `raw` to read
    db.unlink(missing_ok=True)
    store = Store.open(f"sqlite:///{db}")
    ingestor = Ingestor(store, config=config, redactor=Redactor(b"bench"))
    step = partial(accept, ingestor) if defer else ingestor.ingest
    if not setup:
        start = time.process_time()
        for batch in batched(records, BATCH):
            step(batch)
        CPU[0] = time.process_time() - start
    store.close()


def settled(source: str, folder: Path, setup: bool, config: FlagConfig | None, name: str) -> None:
    """The worker's reading of what was accepted (`tracing.settle.settle_all`), with `config`'s rules:
    turns, conversations, flags and groups written. The spans are accepted in both runs (setup too)."""
    db = folder / f"{name}{'-setup' if setup else ''}.db"
    db.unlink(missing_ok=True)
    store = Store.open(f"sqlite:///{db}")
    ingestor = Ingestor(store, config=config, redactor=Redactor(b"bench"))
    for batch in batched(spans_of(source), BATCH):
        accept(ingestor, batch)
    if not setup:
        start = time.process_time()
        settle_all(ingestor)
        CPU[0] = time.process_time() - start
    store.close()


def raw(folder: Path, setup: bool) -> None:
    target = folder / f"raw{'-setup' if setup else ''}.db"
    target.unlink(missing_ok=True)
    conn, rows = raw_target(target, folder / "rows.db")
    if not setup:
        start = time.process_time()
        insert_raw(conn, rows)
        CPU[0] = time.process_time() - start
    conn.close()


def redaction(source: str, setup: bool) -> None:
    """Redaction alone: every span's attributes by one `Redactor`, which first read `warm_spans` (its
    patterns compiled, what it keeps in memory as a running receiver's would be). The figure changes to
    redaction are judged on: a difference of two runs moves less here than on a whole step (the trap of
    `docs/benchmarks.md`)."""
    records, redactor = spans_of(source), Redactor(b"bench")
    for r in warm_spans(source):
        redactor.value(r.attributes)
    if not setup:
        start = time.process_time()
        for r in records:
            redactor.value(r.attributes)
        CPU[0] = time.process_time() - start


def decoding(source: str, setup: bool) -> None:
    """`filon serve`'s receiver's own work: the spans as OTLP protobuf requests of `BATCH` spans (as
    `serve_throughput.py` sends them) decoded by `from_protobuf`, what it does of each request before its
    writer process stores it (about 85 % of its instructions, callgrind on `filon serve --defer`, 2026-12-07).
    Warmed up on `warm_spans` in both runs."""
    from serve_throughput import to_request

    from filon.tracing.records import from_protobuf

    for batch in batched(warm_spans(source), BATCH):
        from_protobuf(to_request(batch))
    bodies = [to_request(batch) for batch in batched(spans_of(source), BATCH)]
    if not setup:
        start = time.process_time()
        for body in bodies:
            from_protobuf(body, [], [])
        CPU[0] = time.process_time() - start


def flags(source: str, setup: bool, config: FlagConfig | None, again: bool = False) -> None:
    from _conversations import conversations

    from filon.miner.core.model import Conversation
    from filon.miner.rules.flags import flag_conversation

    cfg = config or FlagConfig()
    # `again`: as ingest reads a live conversation, flagged again whole with each new turn
    prefixes = [
        Conversation(c.id, c.channel, sorted(c.turns, key=lambda t: t.started_at)[:n])
        for c in conversations(spans_of(source), cfg.escalation_tools)
        for n in (range(1, len(c.turns) + 1) if again else [len(c.turns)])
    ]
    if not setup:
        start = time.process_time()
        for conversation in prefixes:
            flag_conversation(conversation, cfg)
        CPU[0] = time.process_time() - start


def main(argv: list[str]) -> None:
    for a in [a for a in argv if a.startswith("--turns=")]:
        TURNS[0] = int(a.split("=", 1)[1])
        argv.remove(a)
    step, source, folder = argv[0], argv[1], Path(argv[2])
    setup = "--setup" in argv
    if "--warm" in argv and step not in ("raw", "decode"):  # decode warms up on its own
        warm_up(source, folder, full_rulebook() if step.endswith("_full") else None)
    if step == "ingest":
        ingest(source, folder, setup, None, f"{source}-ingest")
    elif step == "ingest_full":
        ingest(source, folder, setup, full_rulebook(), f"{source}-ingest-full")
    elif step == "accept":
        ingest(source, folder, setup, None, f"{source}-accept", defer=True)
    elif step == "settle_full":
        settled(source, folder, setup, full_rulebook(), f"{source}-settle-full")
    elif step == "raw":
        raw(folder, setup)
    elif step == "redact":
        redaction(source, setup)
    elif step == "decode":
        decoding(source, setup)
    elif step == "flags":
        flags(source, setup, None)
    elif step == "flags_full":
        flags(source, setup, full_rulebook())
    elif step == "flags_again_full":
        flags(source, setup, full_rulebook(), again=True)
    else:
        raise SystemExit(f"unknown step {step!r}")
    print(json.dumps({"cpu_s": CPU[0]}))


if __name__ == "__main__":
    main(sys.argv[1:])
