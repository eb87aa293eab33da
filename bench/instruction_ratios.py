"""The CPU-bound ratios counted in instructions, which the machine's load cannot move.

Wall time on this machine moves by tens of percent with whatever else runs (the raw baseline of
`ingest_throughput.py` went from 75,000 to 132,000 spans/s between two rounds of one run), so a change of
a few percent cannot be told from noise by timing. Instructions can: each step runs in a process of its
own under `valgrind --tool=callgrind` (`_instr_child.py`), once with its work and once without (the
imports, the spans built, the store opened: `--setup`), and the work is the difference, the tree compiled
first (`_callgrind.py`). Two sequential runs of a step agree within a few instructions; runs made at other
moments have differed by 1-2 % for the same code (not explained), so a change smaller than that needs more
than one pair of runs. Side by side in one run:

- ingest with redaction and the rulebook as it ships against raw `executemany` of the rows it wrote,
  on the minimal spans (`_spans.py`) and on filon's own agent's spans (`_agent_spans.py`), stated as the
  ratio of raw's instructions to ingest's (the same direction as the wall-clock ratio: 1.0 is raw's
  cost, the goal at least 0.4);
- the same with every rule of the rulebook flagging production (`ingest_full`);
- the flag rules alone, in instructions per turn, as shipped and with the full rulebook; and with the
  full rulebook as ingest runs them on a live conversation, flagged again whole at each new turn (its
  ratio to one reading: what re-reading costs);
- the same on real-shaped large spans (`tau`: `_tau_spans.py`, GPT-4o's conversations through
  OpenInference, the whole history and a long policy on every LLM span);
- a deferred receiver (`filon serve`'s default, `tracing.settle`): its acknowledgement path (spans
  redacted, written, noted as waiting) against raw `executemany` of exactly those rows; its worker's
  reading with every rule on, per turn; and both together against raw of every row an inline ingest
  writes (the whole work, wherever it is done);
- `filon serve`'s receiver's own work: OTLP protobuf requests decoded to records, per span (no goal of
  its own: it bounds what a receiver can take, `serve_throughput.py`).

`docs/benchmarks.md` says which figure decides: for these ratios, the instructions; the wall-clock figure
of `ingest_throughput.py` stays beside it for what a user waits. Without valgrind the script says so and
reports nothing measured (`"skipped"`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from _callgrind import compiled, total

HERE = Path(__file__).resolve().parent
TURNS = 400  # turns of traffic each step works on, given to the child
# each step warmed up on other spans in both of its runs (`_instr_child.warm_up`): what a process pays
# once (patterns compiled, tables built) is not a turn's cost; the cold figure counted it in
WARM = ("--warm",)
CHILD = HERE / "_instr_child.py"


def instructions(folder: Path, *args: str) -> int:
    out = (
        folder
        / f"cg-{'-'.join(a.strip('-') for a in args[:2])}-{'setup' if '--setup' in args else 'work'}.out"
    )
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same hashing in every run: the same instructions
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(CHILD),
            f"--turns={TURNS}",
            *args,
            *WARM,
        ],
        check=True,
        capture_output=True,
        env=env,
        cwd=HERE.parent,
    )
    return total(out)


def work(folder: Path, step: str, source: str) -> int:
    """The instructions of `step`'s work alone: the whole run minus the same run without its work."""
    return instructions(folder, step, source, str(folder)) - instructions(
        folder, step, source, str(folder), "--setup"
    )


def cpu(folder: Path, step: str, source: str, runs: int = 3) -> float:
    """The CPU time of `step`'s work (user and system, the writes' system calls included), best of `runs`
    plain runs: what callgrind leaves out (the kernel's share of a write), less moved by the load than
    wall time, more than instructions."""
    best = float("inf")
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, str(CHILD), f"--turns={TURNS}", step, source, str(folder), *WARM],
            check=True,
            capture_output=True,
            text=True,
            cwd=HERE.parent,
        )
        best = min(best, json.loads(out.stdout.strip().splitlines()[-1])["cpu_s"])
    return best


def sizes(source: str) -> tuple[int, int]:
    """The turns and the spans a step works on, the spans built (or read) once: the turns are TURNS for
    the generated sources, as read for the recorded ones."""
    from _instr_child import TURNS as CHILD_TURNS
    from _instr_child import spans_of

    from filon.tracing.grouping import by_trace

    CHILD_TURNS[0] = TURNS
    spans = spans_of(source)
    return (len(by_trace(spans)) if source == "tau" else TURNS), len(spans)


def figures(folder: Path, source: str) -> dict[str, object]:
    turns, spans = sizes(source)
    ingest = work(folder, "ingest", source)
    shutil.copy(folder / f"{source}-ingest.db", folder / "rows.db")
    raw = work(folder, "raw", source)
    full = work(folder, "ingest_full", source)
    cpu_ingest, cpu_raw, cpu_full = (cpu(folder, step, source) for step in ("ingest", "raw", "ingest_full"))
    flags = work(folder, "flags", source)
    flags_full = work(folder, "flags_full", source)
    flags_again = work(folder, "flags_again_full", source)
    # a deferred receiver: its acknowledgement path against raw `executemany` of what that path wrote
    # (the spans, the traces noted as waiting), and its worker's reading with every rule on
    accepted = work(folder, "accept", source)
    shutil.copy(folder / f"{source}-accept.db", folder / "rows.db")
    raw_accepted = work(folder, "raw", source)
    cpu_accept, cpu_raw_accepted = cpu(folder, "accept", source), cpu(folder, "raw", source)
    settled = work(folder, "settle_full", source)
    decoded = work(folder, "decode", source)  # `filon serve`'s receiver: OTLP protobuf to records
    return {
        f"{source}_decode_instructions_per_span": round(decoded / spans),
        f"{source}_accept_instructions": accepted,
        f"{source}_ratio_accept_to_raw_instructions": round(raw_accepted / accepted, 3),
        f"{source}_ratio_accept_to_raw_cpu_time": round(cpu_raw_accepted / cpu_accept, 3),
        f"{source}_settle_full_rulebook_instructions_per_turn": round(settled / turns),
        # the whole work, both paths, against raw of every row an inline ingest writes
        f"{source}_ratio_accept_and_settle_to_raw_instructions": round(raw / (accepted + settled), 3),
        f"{source}_ingest_instructions": ingest,
        f"{source}_raw_executemany_instructions": raw,
        f"{source}_ratio_ingest_to_raw_instructions": round(raw / ingest, 3),
        f"{source}_ratio_ingest_full_rulebook_to_raw_instructions": round(raw / full, 3),
        f"{source}_ratio_ingest_to_raw_cpu_time": round(cpu_raw / cpu_ingest, 3),
        f"{source}_ratio_ingest_full_rulebook_to_raw_cpu_time": round(cpu_raw / cpu_full, 3),
        f"{source}_turns": turns,
        f"{source}_flag_rules_instructions_per_turn": round(flags / turns),
        f"{source}_flag_rules_full_rulebook_instructions_per_turn": round(flags_full / turns),
        # a live conversation is flagged again whole with each new turn: what that re-reading costs
        f"{source}_flag_rules_full_rulebook_as_ingest_rereads_instructions_per_turn": round(
            flags_again / turns
        ),
        f"{source}_ratio_flags_reread_to_once": round(flags_again / flags_full, 3),
    }


def main() -> None:
    if shutil.which("valgrind") is None:
        print(json.dumps({"skipped": "valgrind is not installed (apt-get install valgrind)"}))
        return
    compiled()  # no run pays for compiling a module edited since its last import
    out: dict[str, object] = {"goal_ratio_at_least": 0.4, "turns": TURNS, "redaction": True}
    with tempfile.TemporaryDirectory() as tmp:
        for source in ("minimal", "agent", "tau"):
            out.update(figures(Path(tmp), source))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
