"""Instructions a turn of each named detector on the agent's spans: where the flag rules' cost lies, before
changing one (`make bench` gives their sum, `instruction_ratios.py`'s flag figures).

`python bench/_detector_instructions.py grounding security`: each detector run alone over the same
conversations as `instruction_ratios.py`'s `flags_full` step (every rule on), under callgrind, with and
without its work, after every detector has run once on other spans (what a process pays once is in
neither run). Prints one JSON object, instructions a turn by detector. Not run by `make bench` (two
callgrind runs a detector). The same script, given `--child NAME [--setup]`, is the measured process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filon.miner.core.model import Conversation
    from filon.tracing.records import SpanRecord

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from _callgrind import compiled, total

TURNS = 400


def _conversations(records: list[SpanRecord]) -> list[Conversation]:
    from _conversations import conversations
    from ingest_throughput import full_rulebook

    return conversations(records, full_rulebook().escalation_tools)


def child(name: str, setup: bool) -> None:
    from _agent_spans import agent_traffic
    from _spans import traffic
    from ingest_throughput import full_rulebook

    from filon.miner.rules.flags import flag_conversation
    from filon.miner.rules.registry import detectors

    cfg = full_rulebook()
    for conversation in _conversations(traffic(8)):
        flag_conversation(conversation, cfg)
    conversations = _conversations(agent_traffic(TURNS))
    [detector] = [d for d in detectors() if d.name == name]
    if not setup:
        for conversation in conversations:
            detector.find(conversation, cfg)


def instructions(folder: Path, name: str, setup: bool) -> int:
    out = folder / f"cg-{name}-{'setup' if setup else 'work'}.out"
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            name,
            *(["--setup"] if setup else []),
        ],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return total(out)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        child(argv[1], "--setup" in argv)
        return
    if not argv or "-h" in argv or "--help" in argv:
        raise SystemExit(__doc__)
    from _agent_spans import agent_traffic

    compiled()

    from filon.tracing.grouping import by_trace

    turns = len(by_trace(agent_traffic(TURNS)))
    out: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in argv:
            work = instructions(Path(tmp), name, False) - instructions(Path(tmp), name, True)
            out[name] = round(work / turns)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
