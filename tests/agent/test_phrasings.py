"""The stand-in on customer messages it was never shaped to: the tools and escalation a competent agent picks.

`phrasings/dev*.json` and `heldout.json` were read while the keyword rules were written (`heldout.json` was
held aside at first, then read once it had been scored); `heldout2.json` was written afterwards by
someone else, from the policies alone, and has never been read to tune the rules. Each message runs as a fresh
conversation through the reference agent on the scripted model (over loopback HTTP), and is graded on
actions only by `evaluer_cas`. `python -m tests.agent.test_phrasings FILE…` prints the share right per
file and nothing of the messages, so the held-aside half can be scored without being read.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent.model import SCRIPTED_MODEL, scripted_client
from agent.scripted import ScriptedModel, ScriptedSettings
from agent.service import Conversation, SupportService
from goldens.grading import evaluer_cas

HERE = Path(__file__).parent / "phrasings"
GOAL = 0.9  # the share right the stand-in must reach on messages the rules were written from
# The held-aside table scores 0.76 (the goal is 0.9, not met: keyword rules do not carry over to a new
# writer's words). This floor keeps what was measured from slipping; raise it when a new score is
# measured, never lower it. Reading the table's messages would make it no longer held aside.
HELDOUT_FLOOR = 0.76
READ = ["dev", "dev2", "dev3", "dev4", "heldout"]


def load(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return data


def gaps(url: str, item: dict[str, Any]) -> list[str]:
    service = SupportService(scripted_client(url), SCRIPTED_MODEL)  # a fresh shop per message
    if item.get("canal") == "whatsapp":
        conversation = Conversation.whatsapp(str(item["tel"]))
    else:
        conversation = Conversation.web(uuid.uuid4().hex)
    reponse = service.repondre(conversation, item["message"])
    expected = {k: item.get(k) for k in ("outils", "outils_interdits", "escalade")}
    return evaluer_cas(expected, reponse.outils, [reponse.texte], reponse.escalade)


def score(url: str, items: list[dict[str, Any]]) -> tuple[int, list[tuple[int, list[str]]]]:
    wrong = [(i, g) for i, item in enumerate(items) if (g := gaps(url, item))]
    return len(items) - len(wrong), wrong


@pytest.mark.parametrize("name", [*READ, "heldout2"])
def test_the_stand_in_chooses_like_a_competent_agent(name: str, scripted: ScriptedModel) -> None:
    items = load(name)
    right, wrong = score(scripted.url, items)
    assert len(items) >= 20
    # the held-aside half reports indexes only: reading its messages would make it no longer held aside
    shown = [(i, g) if name in READ else i for i, g in wrong]
    goal = GOAL if name in READ else HELDOUT_FLOOR
    assert right / len(items) >= goal, f"{name}: {right}/{len(items)} right; wrong: {shown}"


def main(names: list[str]) -> None:
    with ScriptedModel(ScriptedSettings()) as server:
        for name in names:
            items = load(name)
            right, wrong = score(server.url, items)
            print(f"{name}: {right}/{len(items)} right ({right / len(items):.0%})")
            if name in READ:
                for i, g in wrong:
                    print(f"  [{i}] {items[i]['message']!r}: {'; '.join(g)}")


if __name__ == "__main__":
    main(sys.argv[1:] or [*READ, "heldout2"])
