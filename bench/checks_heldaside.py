"""The set's checks on answers they were never proven on: a held-aside table of 36 answers (12 for each of
the three cases with a `proche_de`, 21 `bon` and 15 `mauvais`), written by a reviewer from the shop's
help texts alone, without reading the checks, and scored by nobody while they were built.

Each answer goes through its case's deterministic checks (with the case's tools, no escalation), then
its `proche_de`; the verdict of the checks is compared with the reviewer's: a `bon` answer they fail is
a gate that cries wolf, a `mauvais` one they pass is a gate that lies. Side by side, `proche_de` read
by passages (`goldens.similarity.Embedder.similarity`) and on the whole answer alone, its earlier form.
The embeddings are the scripted stand-in's (in-process, over loopback): the figures say nothing of
Gemini's embeddings, only of the stand-in CI gates with. Tuning the cases on this table would make it
one more set of examples: these figures would then prove nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.model import scripted_client
from agent.scripted.server import ScriptedModel
from goldens.caseset import load_set
from goldens.grading import evaluer_cas
from goldens.similarity import SCRIPTED_EMBEDDING, Embedder, cosine

TABLE = Path(__file__).resolve().parent / "checks_heldaside.json"
CASES = Path(__file__).resolve().parent.parent / "goldens" / "cases"


def main() -> None:
    items = json.loads(TABLE.read_text(encoding="utf-8"))
    cases = {c.id: c for c in load_set(CASES).cases}
    tally = {"passages": [0, 0], "whole": [0, 0]}  # (cries wolf, lies)
    agree = {"passages": 0, "whole": 0}
    with ScriptedModel() as model:
        embedder = Embedder(scripted_client(model.url), SCRIPTED_EMBEDDING, stand_in=True)
        for item in items:
            case = cases[item["case"]]
            near = case.proche_de
            assert near is not None, f"{case.id} has no proche_de"
            tools = [t if isinstance(t, str) else t[0] for t in case.outils]
            deterministic = not evaluer_cas(case.checks(), tools, [item["reponse"]], False)
            found, _ = embedder.similarity(near.reference, item["reponse"], near.seuil)
            (ref, whole), _ = embedder.embed([near.reference, item["reponse"]])
            for name, passed in (("passages", found.passed), ("whole", cosine(ref, whole) >= near.seuil)):
                accepted = deterministic and passed
                good = item["verdict"] == "bon"
                agree[name] += accepted == good
                tally[name][0] += good and not accepted
                tally[name][1] += accepted and not good
    good_n = sum(i["verdict"] == "bon" for i in items)
    out: dict[str, object] = {"answers": len(items), "bon": good_n, "mauvais": len(items) - good_n}
    for name in ("passages", "whole"):
        out[f"{name}_agreement"] = round(agree[name] / len(items), 3)
        out[f"{name}_cries_wolf"] = tally[name][0]
        out[f"{name}_lies"] = tally[name][1]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
