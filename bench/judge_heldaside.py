"""The judge on answers it was never calibrated on: a held-aside table of 48 labelled answers (24 per
criterion), written by a reviewer from the rubrics alone and read by nobody while the stand-in judge was
built. Side by side: the judge's kappa on the set's labels (its calibration file) and on this table.

A judge whose kappa drops on answers it has not seen is calibrated on answers too close to its own
heuristics; the set's figure alone would say it may gate. Runs the scripted stand-in judge (in-process,
over loopback): the figures say nothing of a real judge, only of the stand-in the CI gates with.
"""

from __future__ import annotations

import json
from pathlib import Path

from filon.agent.model import scripted_client
from filon.agent.scripted.server import ScriptedModel
from filon.goldens.checks.rubrics import load_rubric, read_calibration
from filon.goldens.models.judge import SCRIPTED_JUDGE, Judge
from filon.goldens.set.judge_calibration import kappa

TABLE = Path(__file__).resolve().parent / "judge_heldaside.json"


def main() -> None:
    items = json.loads(TABLE.read_text(encoding="utf-8"))
    out: dict[str, object] = {"labels": len(items)}
    with ScriptedModel() as model:
        judge = Judge(scripted_client(model.url), SCRIPTED_JUDGE, stand_in=True)
        for name in sorted({i["critere"] for i in items}):
            rubric = load_rubric(Path("goldens/judges"), name)
            pairs = []
            for item in (i for i in items if i["critere"] == name):
                verdict = judge.score(rubric, [item["question"]], item["reponse"])
                pairs.append((item["verdict"], "bon" if verdict.passed else "mauvais"))
            calibrated = read_calibration(rubric).for_model(SCRIPTED_JUDGE)
            out[f"{name}_heldaside_labels"] = len(pairs)
            out[f"{name}_heldaside_accuracy"] = round(sum(a == b for a, b in pairs) / len(pairs), 3)
            out[f"{name}_heldaside_kappa"] = kappa(pairs)
            out[f"{name}_set_kappa"] = calibrated.kappa if calibrated else None
    out["goal_kappa_at_least"] = 0.6
    print(json.dumps(out))


if __name__ == "__main__":
    main()
