"""The tau-bench airline corpus (`tau_airline/`): 100 real conversations of GPT-4o as an airline's support
agent (tasks 0-24 of the public benchmark, 4 trials each), exported through OpenInference as a team running
that agent would (`tau_airline/record.py` says how), each with the benchmark's verdict and what the trial
said and did, turn by turn, read from the trajectory itself. Tasks 25-49 are not here: they measure the
work apart, and nobody changing filon reads them."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent / "tau_airline"
# the agent's settings a team would write for it (docs/any-agent.md): its tools that change the world, the
# lookup that ties a record to the customer, the policy's confirmation before a write
FILON_TOML = """\
tools = ["book_reservation", "calculate", "cancel_reservation", "get_reservation_details", "get_user_details",
         "list_all_airports", "search_direct_flight", "search_onestop_flight", "send_certificate", "think",
         "transfer_to_human_agents", "update_reservation_baggages", "update_reservation_flights",
         "update_reservation_passengers"]
write_tools = ["book_reservation", "cancel_reservation", "update_reservation_baggages",
               "update_reservation_flights", "update_reservation_passengers", "send_certificate"]
identity_tools = []      # the policy asks for no identity check before a reservation is told
disclosing_tools = []
escalation_tools = ["transfer_to_human_agents"]
confirm_writes = true
"""


def payloads() -> list[Path]:
    return sorted(FOLDER.glob("task-*.pb.gz"))


@cache
def trials() -> tuple[dict[str, Any], ...]:
    """Each trial: task, trial, conversation id, reward (1.0 right, 0.0 wrong) and its turns."""
    raw = gzip.decompress((FOLDER / "trials-00-24.json.gz").read_bytes())
    return tuple(json.loads(raw)["trials"])


def verdicts() -> dict[str, bool]:
    """Conversation id → whether the benchmark judged the trial right."""
    return {t["conversation"]: t["reward"] == 1.0 for t in trials()}
