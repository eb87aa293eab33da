"""Each rule of the rulebook proven on the set's examples before it gates, as lint proves a case's checks.

Every example of every case is held to the rulebook (`goldens.checks.rules.Rules`): a rule that breaks
a `bon` example is named with the example (too strict there) and stays advisory; a rule that a `mauvais`
example breaks counts for it. A rule gates once it was tried on enough examples (`MIN_TRIED`; `fait_non_fonde` is tried only on the
examples whose calls' results are known) and breaks no good example of the set; `filon goldens
lint` prints each rule's figures, `filon eval` says which rules gate and which are advisory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from filon.goldens.case.schema import Case, Example
from filon.goldens.checks.rules import Rules, Standing, unknown_results
from filon.goldens.set.calibration import transcript
from filon.miner.core.model import ToolCall
from filon.miner.core.transcript import Transcript


def example_transcript(case: Case, example: Example) -> Transcript:
    """An example as the rules read it: one that gives no tools did what the case expects (the first
    tool of each group, on its last turn), with its admitted facts."""
    seen = transcript(case, example)
    if example.outils is None and seen.turns:
        expected = [ToolCall.named(group[0]) for group in case.expected_tools()]
        last = seen.turns[-1]
        seen.turns[-1] = replace(last, tools=[*last.tools, *expected])
    seen.allowed = [f.fait for f in example.faits_admis]
    return seen


def standings(cases: Sequence[Case], rules: Rules) -> dict[str, Standing]:
    """Each enabled rule's figures over every example of the set."""
    out = {name: Standing(name) for name, r in rules.config.rules.rules.items() if r.enabled}
    for case in cases:
        if case.simulation is not None:
            continue  # a simulated customer's turns are not the example's
        for i, example in enumerate(case.exemples):
            read = example_transcript(case, example)
            broken = {g.check.split(".", 1)[1] for g in rules.grade(case, read)}
            blind = unknown_results(rules.seen(case, read))
            for name, standing in out.items():
                if name == "fait_non_fonde" and blind:
                    continue  # the example does not say what its calls returned
                standing.tried += 1
                if name not in broken:
                    continue
                if example.verdict == "bon":
                    standing.good_broken.append(f"{case.id} exemples[{i}]")
                else:
                    standing.bad_caught += 1
    return out
