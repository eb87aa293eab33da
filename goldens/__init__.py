"""The golden set and the gate, in rooms that import downwards only (an import-linter contract):

    evaluate | drafting   the one call behind `filon eval`; from a conversation to a case
    verdict               the gate's decision, comparisons, the report and its writers
    run                   replaying cases through a target
    set                   the set as a whole: lint, calibration, mutants, trust
    models                the gate's own model calls: judge, embeddings, simulated customer
    checks                grading: one protocol, every check kind, the rubrics
    case                  the case format

`goldens/cases/` and `goldens/judges/` are data, not code. `exits` (the exit codes) is shared by all.
"""
