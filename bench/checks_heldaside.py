"""The set's checks on answers they were never proven on: held-aside tables of answers a reviewer wrote
from the shop's rules, help texts and data alone, without reading the checks, and that nobody scored
while the checks were built.

- `heldaside_set.json`: answers to every single-conversation case of the set (not the simulated ones),
  `bon` and `mauvais`, each with the tools it called and whether it escalated;
- `heldaside_set_b.json`: a second such table, by another reviewer session under the same rules, written
  after the first had been used to decide a change (so that one table stays unused by any decision);
- `heldaside_proche_de.json`: 36 answers to the three cases with a `proche_de`;
- `heldaside_set_c.json`: a third table by a third reviewer session, written turn by turn with calls,
  its wrong answers mostly wrong in words whose actions look right (a fact the agent saw nowhere, an
  action claimed that no call did, a gesture promised), written while the rulebook was built and read
  by nobody; scored by the case checks alone (`set_c_`) and by the whole gate (`gate_set_c_`);
- `heldaside_set_d.json` (232 answers, 93 `bon`, 139 `mauvais`) and `heldaside_set_e.json`: two more
  tables by two more reviewer sessions (2026-12-03), written turn by turn with each search's question,
  from the cases' customer turns, the shop's help texts, instructions and data alone; D was scored once
  as it came (whole gate 0.879, crying wolf 4/93, lying 24/139), then used to decide the rulebook's
  changes that day; E was written meanwhile and scored once, after them, read by nobody;
- `heldaside_set_f.json` (271 answers, 112 `bon`, 159 `mauvais`): a sixth table by a sixth reviewer
  session (2026-12-03), written from the same materials only (the cases' customer turns and fixtures,
  the agent's instructions, help texts, data and tools, each call run on the case's shop), while the
  rulebook's changes of that day were made, and scored once after them;
- `heldaside_set_g.json` (266 answers, 112 `bon`, 154 `mauvais`): a seventh table by a seventh reviewer
  session (2026-12-03, evening), from the same materials only, written while the rulebook's changes of that
  evening were decided on C to F, and scored once after them (and once on the code before them);
- `heldaside_set_i.json` (92 answers, 40 `bon`, 52 `mauvais`): the development half of a ninth table by a
  ninth reviewer session (2026-12-05), from the same materials only; read to decide the rulebook's
  changes of that day. Its other half (122 answers) is kept outside the repository, read by nobody, and
  scored once after them;
- `heldaside_set_j_dev.json` (50 answers) and `heldaside_set_j.json` (100): the two halves of a tenth
  table by a tenth reviewer session (2026-12-05, from the same materials only); the first read to decide
  that day's last changes, the second kept unread in the repository and scored once after them;
- `heldaside_set_l.json` (124 answers, 52 `bon`, 72 `mauvais`): a twelfth table by a twelfth reviewer
  session (2026-12-05, evening), from the same materials only (the cases' customer turns and fixtures,
  the agent's instructions, help texts, data and tools, each call run on the case's shop), scored once
  as it came (whole gate 0.903, crying wolf 4/52, lying 8/72), then read;
- `heldaside_set_m.json` (121 answers, 50 `bon`, 71 `mauvais`): a thirteenth table by a thirteenth
  reviewer session (2026-12-05, night), from the same materials only, written while table L's changes
  were made and scored once after them (whole gate 0.950, crying wolf 1/50, lying 5/71, one of them in
  the blocking category), then read;
- `heldaside_set_n.json` (120 answers, 50 `bon`, 70 `mauvais`): a fourteenth table by a fourteenth
  reviewer session (2026-12-05, night), written while table M's changes were made and scored once after
  them (whole gate 0.933, crying wolf 0/50, lying 8/70, none in the blocking category), then read;
- every table also through the whole gate (`gate_…`): the case's checks, then the rulebook's rules that
  gate (`rules_gating`, proven on the set's examples), then the checks that ask a model; the rules read
  each table on the day it was written (`WRITTEN`: the shop's dates are relative to the day, the answers'
  « demain » and « le 4 décembre » are not), as `filon goldens trust --on` does;
- `heldaside_trajectory.json`: answers written turn by turn, each with the tool calls it made (arguments
  and failures) per turn, by a reviewer session from the shop's rules, help texts and data alone, before
  the trajectory checks were written and never read while they were: half its wrong answers are wrong
  in what the agent did (an argument, an order, a turn), not in its words. Scored as written (`traj_`),
  and flattened to tool names over the whole conversation (`traj_flat_`), which is all the earlier
  grader could read.

Each answer goes through the gate's own grading: its case's deterministic checks
(`goldens.set.calibration.grade`, as lint and the runner), then, where those passed, the checks that ask a
model (`goldens.models.model_checks.ModelChecks.apply`: `proche_de`, then the judge where it is calibrated to
gate). The verdict of the checks is compared with the reviewer's: a `bon` answer they fail is a gate that
cries wolf, a `mauvais` one they pass is a gate that lies. For the `proche_de` table, the similarity read
by passages (`goldens.models.similarity.Embedder.similarity`) beside its earlier whole-answer form. Beside them,
how many mutants of the set's own good examples (`goldens.set.mutants`: one figure moved, one statement denied
or one denial dropped) the checks reject: made by rule, not judged, so a figure of looseness, not of
agreement.

The models are the scripted stand-in's (in-process, over loopback): the figures say nothing of Gemini's
embeddings or judge, only of the stand-in CI gates with. Tuning the cases on these tables would make them
one more set of examples: their figures would then prove nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from filon.agent.model import open_backend
from filon.goldens.case.schema import Case, Example
from filon.goldens.checks.rules import RuleGate, Rules
from filon.goldens.models.model_checks import ModelChecks, open_model_checks
from filon.goldens.models.similarity import cosine
from filon.goldens.set.calibration import grade
from filon.goldens.set.caseset import load_set
from filon.goldens.set.mutants import accepted as accepted_mutants
from filon.goldens.set.rule_standing import example_transcript, standings

HERE = Path(__file__).resolve().parent
CASES = HERE.parent / "goldens" / "cases"
SET_TABLES = (("heldaside_set.json", "set_"), ("heldaside_set_b.json", "set_b_"))
# the day each table was written: the shop's dates are relative to the day, its answers' are not
WRITTEN = {
    "heldaside_set.json": date(2026, 12, 1),
    "heldaside_set_b.json": date(2026, 12, 1),
    "heldaside_trajectory.json": date(2026, 12, 1),
    "heldaside_set_c.json": date(2026, 12, 2),
    "heldaside_set_d.json": date(2026, 12, 3),
    "heldaside_set_e.json": date(2026, 12, 3),
    "heldaside_set_f.json": date(2026, 12, 3),
    "heldaside_set_g.json": date(2026, 12, 3),
    "heldaside_set_i.json": date(2026, 12, 5),
    "heldaside_set_j_dev.json": date(2026, 12, 5),
    "heldaside_set_j.json": date(2026, 12, 5),
    "heldaside_set_l.json": date(2026, 12, 5),
    "heldaside_set_m.json": date(2026, 12, 5),
    "heldaside_set_n.json": date(2026, 12, 5),
}
TURN_TABLES = (
    ("heldaside_set_c.json", "set_c_"),
    ("heldaside_set_d.json", "set_d_"),
    ("heldaside_set_e.json", "set_e_"),
    ("heldaside_set_f.json", "set_f_"),
    ("heldaside_set_g.json", "set_g_"),
    ("heldaside_set_i.json", "set_i_"),
    ("heldaside_set_j_dev.json", "set_j_dev_"),
    ("heldaside_set_j.json", "set_j_"),
    ("heldaside_set_l.json", "set_l_"),
    ("heldaside_set_m.json", "set_m_"),
    ("heldaside_set_n.json", "set_n_"),
)


def example(row: dict[str, Any]) -> Example:
    answers = [row["reponse_1"], row["reponse"]] if row.get("reponse_1") else row["reponse"]
    return Example(
        verdict=row["verdict"], reponse=answers, outils=row.get("outils"), escalade=row.get("escalade")
    )


def turn_example(row: dict[str, Any], flat: bool = False) -> Example:
    """A trajectory row as an example: its calls per turn, or (`flat`) their names over the conversation."""
    calls = row["outils"]
    if flat:
        calls = [c["outil"] if isinstance(c, dict) else c for turn in calls for c in turn]
    answers = row["reponse"] if len(row["reponse"]) > 1 else row["reponse"][0]
    return Example(verdict=row["verdict"], reponse=answers, outils=calls, escalade=row.get("escalade"))


def accepted(case: Case, ex: Example, checks: ModelChecks | None, rules: RuleGate | None = None) -> bool:
    """Whether the gate passes the answer: the case's checks, then (`rules`) the rulebook's gating rules,
    then the checks that ask a model."""
    if grade(case, ex):
        return False
    if rules is not None and rules.apply(case, example_transcript(case, ex))[0]:
        return False
    if checks is None:
        return True
    outcome = checks.apply(case, ex.answers(), deterministic_passed=True)
    return not outcome.gaps and outcome.error is None


def tally(rows: list[tuple[str, str, bool]], prefix: str, by_category: bool = True) -> dict[str, object]:
    """Agreement, cries wolf and lies over (category, verdict, accepted) rows, overall and by category."""
    out: dict[str, object] = {}
    for name in ["", *(sorted({c for c, _, _ in rows}) if by_category else [])]:
        mine = [(v, a) for c, v, a in rows if not name or c == name]
        counts = Counter(mine)
        key = f"{prefix}{name + '_' if name else ''}"
        good = counts[("bon", True)] + counts[("bon", False)]
        bad = counts[("mauvais", True)] + counts[("mauvais", False)]
        out[f"{key}agreement"] = round((counts[("bon", True)] + counts[("mauvais", False)]) / len(mine), 3)
        out[f"{key}cries_wolf"] = f"{counts[('bon', False)]}/{good}"
        out[f"{key}lies"] = f"{counts[('mauvais', True)]}/{bad}"
    return out


def main() -> None:
    cases = {c.id: c for c in load_set(CASES).cases}
    out: dict[str, object] = {}
    with open_backend("scripted") as backend:
        checks = open_model_checks(list(cases.values()), CASES, backend)
        assert checks is not None and checks.embedder is not None
        for name, prefix in SET_TABLES:
            table = json.loads((HERE / name).read_text(encoding="utf-8"))
            rows = [
                (cases[r["case"]].categorie, r["verdict"], accepted(cases[r["case"]], example(r), checks))
                for r in table
            ]
            out[f"{prefix}answers"] = len(rows)
            out.update(tally(rows, prefix))
        trajectory = json.loads((HERE / "heldaside_trajectory.json").read_text(encoding="utf-8"))
        out["traj_answers"] = len(trajectory)
        for prefix, flat in (("traj_", False), ("traj_flat_", True)):
            rows = [
                (
                    cases[r["case"]].categorie,
                    r["verdict"],
                    accepted(cases[r["case"]], turn_example(r, flat), checks),
                )
                for r in trajectory
            ]
            out.update(tally(rows, prefix))
        rules = Rules()
        gate = RuleGate(rules, standings(list(cases.values()), rules))
        out["rules_gating"] = sorted(name for name in gate.standings if gate.gates(name))
        tables = (*SET_TABLES, ("heldaside_trajectory.json", "traj_"), *TURN_TABLES)
        for name, prefix in tables:
            if not (HERE / name).exists():
                continue
            table = json.loads((HERE / name).read_text(encoding="utf-8"))
            read = turn_example if prefix != "set_" and prefix != "set_b_" else example
            if prefix == "set_c_":  # the checks alone too: this table informed no decision before
                alone = [
                    (cases[r["case"]].categorie, r["verdict"], accepted(cases[r["case"]], read(r), checks))
                    for r in table
                ]
                out["set_c_answers"] = len(table)
                out.update(tally(alone, prefix))
            # the rules read each table's answers on the day it was written (its « demain » and « le 4
            # décembre » against the shop as it stood then), their standing as the set proves it today
            dated = RuleGate(Rules(today=WRITTEN[name]), gate.standings)
            rows = [
                (cases[r["case"]].categorie, r["verdict"], accepted(cases[r["case"]], read(r), checks, dated))
                for r in table
            ]
            out.update(tally(rows, f"gate_{prefix}"))
        mutated = [accepted_mutants(case) for case in cases.values()]
        tried = sum(count for _, count in mutated)
        out["set_mutants_rejected"] = f"{tried - sum(len(kept) for kept, _ in mutated)}/{tried}"
        near = json.loads((HERE / "heldaside_proche_de.json").read_text(encoding="utf-8"))
        passages, whole = [], []
        for r in near:
            case, ex = cases[r["case"]], example({**r, "outils": None, "escalade": None})
            assert case.proche_de is not None, f"{case.id} has no proche_de"
            passages.append((case.id, r["verdict"], accepted(case, ex, checks)))
            (ref, got), _ = checks.embedder.embed([case.proche_de.reference, r["reponse"]])
            close = cosine(ref, got) >= case.proche_de.seuil
            whole.append((case.id, r["verdict"], not grade(case, ex) and close))
        out["proche_de_answers"] = len(near)
        out.update(tally(passages, "proche_de_passages_", by_category=False))
        out.update(tally(whole, "proche_de_whole_", by_category=False))
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
