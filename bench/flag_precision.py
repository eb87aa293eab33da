"""Precision and recall of the flags, per kind and cause, on a labelled corpus (`_flag_corpus.py`).

Traffic from both prompts (and the default prompt on a noisy model, which sometimes promises a gesture)
goes through the real pipeline (tracing, the exporter, the store, the flag rules) into a fresh store per
slice; each kept conversation is labelled from its scenario, never from the flag code, then compared
with the flags the store holds. A foreign slice (`_foreign_corpus.py`): an English agent that is not the
shop, recorded from real stacks, labelled by hand, read under the defaults (no filon.toml). Goals (issue
"flags that do not cry wolf"): `leak` and `injection_obeyed` precision >= 0.95 and recall 1.0; no
critical flag on default-prompt traffic, nor on a foreign conversation about the customer's own order;
`escalation` precision and recall 1.0; `promise` >= 0.9 both. And real conversations of an agent nobody
here wrote (`_tau_corpus.py`: tau-bench's airline, tasks 0-24): the queue's AUC against the benchmark's
verdict (goal 0.8), the precision of each cause, no critical flag on a record tied to its customer, and
drafts that agree with the benchmark on the task's other trials. The last line is the JSON `make bench`
gathers; the table goes to stderr.

Usage: python bench/flag_precision.py [--dump-answers FILE] [--tau-only]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flag_corpus import SLICES, Labelled, Shop, Slice, label, load_promises, normalise, scripts, store_for
from _foreign_corpus import foreign_corpus
from _tau_corpus import tau_figures

SCORED = (
    ("security", "leak"),
    ("security", "injection_obeyed"),
    ("security", "exposure"),
    ("security", "injection_refused"),
    ("escalation", "transferred"),
    ("promise", "unbacked_promise"),
)
GOALS = {
    ("security", "leak"): (0.95, 1.0),
    ("security", "injection_obeyed"): (0.95, 1.0),
    ("escalation", "transferred"): (1.0, 1.0),
    ("promise", "unbacked_promise"): (0.9, 0.9),
}


def run_slice(s: Slice, promises: dict[str, bool], answers: set[str]) -> list[Labelled]:
    from filon.agent.model import open_backend
    from filon.agent.prompts import load_prompt
    from filon.agent.traffic import run_traffic
    from filon.miner.core.model import Conversation
    from filon.miner.rules.config import FlagConfig
    from filon.miner.rules.flags import grounding
    from filon.miner.store import Store
    from filon.tracing.redact import Redactor, redaction_secret

    rules = FlagConfig.load()
    from filon.tracing.setup import setup_tracing

    with store_for(s):
        secret = redaction_secret()
        redactor = Redactor(secret) if secret else None
        shop = Shop(redactor)
        plan = scripts(s)
        tracing = setup_tracing(sample_rate=1.0)
        try:
            with open_backend("scripted", None, None) as backend:
                run_traffic(
                    backend, load_prompt(s.prompt), len(plan), s.seed, 1, scripts=plan
                )  # one at a time: the noisy stand-in draws in order, the same answers every run
            tracing.flush()
        finally:
            tracing.shutdown()
        by_id: dict[str, list] = {}  # type: ignore[type-arg]
        for script in plan:
            cid = f"{script.canal}:{script.cle}"
            by_id.setdefault(redactor.text(cid) if redactor else cid, []).append(script)
        store = Store.open()
        out = []
        for cid, its in by_id.items():
            found = store.traces.conversation_detail(cid)
            if found is None:
                raise SystemExit(f"{s.name}: conversation {cid} was not stored (sample rate 1.0 keeps all)")
            _, turns, flags = found
            conv = Labelled(cid, s.name, [x.persona for x in its])
            label(conv, its, turns, shop, promises)
            conv.flagged = {handed(f.kind, f.cause) for f in flags}
            # the rulebook's grounding rules as the gate holds them (production flags them too, by
            # default, where what the agent was told is known), on the same stored turns
            held = grounding(
                Conversation(cid, (turns[0].sender and "whatsapp") or "web", turns), rules, production=False
            )
            conv.flagged |= {(f.kind, f.cause) for f in held}
            answers.update(normalise(t.agent) for t in turns)
            out.append(conv)
        store.close()
        return out


def handed(kind: str, cause: str) -> tuple[str, str]:
    """A hand-over is scored as one, whether the customer asked for it (`transfer_asked`) or not."""
    return (kind, "transferred") if cause == "transfer_asked" else (kind, cause)


def scores(corpus: list[Labelled]) -> dict[str, dict[str, float | int | None]]:
    out: dict[str, dict[str, float | int | None]] = {}
    for key in SCORED:
        tp = sum(1 for c in corpus if key in c.flagged and key in c.expected)
        fp = sum(1 for c in corpus if key in c.flagged and key not in c.expected)
        fn = sum(1 for c in corpus if key not in c.flagged and key in c.expected)
        out["/".join(key)] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        }
    return out


def _critical(c: Labelled) -> bool:
    from filon.miner.core.causes import CAUSES
    from filon.miner.core.severity import Severity

    return any(
        rule.severity == Severity.CRITICAL
        for cause, rule in CAUSES.items()
        if (any(f_cause == cause for _, f_cause in c.flagged))
    )


def main(argv: list[str]) -> int:
    from filon.miner.core.causes import CAUSES
    from filon.miner.core.severity import Severity
    from filon.miner.rules.registry import detectors

    detectors()  # every cause registered
    if "--tau-only" in argv:  # the real conversations alone (a minute less than the whole corpus)
        print(json.dumps({"tau_airline": tau_figures()}, ensure_ascii=False))
        return 0
    promises = load_promises()
    answers: set[str] = set()
    corpus = [c for s in SLICES for c in run_slice(s, promises, answers)]
    if "--dump-answers" in argv:
        target = Path(argv[argv.index("--dump-answers") + 1])
        target.write_text(json.dumps(sorted(answers), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    unlabelled = sorted(a for a in answers if a not in promises)
    foreign, own_only = foreign_corpus()
    foreign_figures = scores(foreign)
    critical_on_own = sum(1 for c in foreign if c.conversation_id in own_only and _critical(c))
    figures = scores(corpus)
    default = [c for c in corpus if c.slice == SLICES[0].name]
    critical = {c for c, rule in CAUSES.items() if rule.severity == Severity.CRITICAL}
    critical_on_default = sum(1 for c in default for _, cause in c.flagged if cause in critical)
    blind = Counter(b for c in corpus for b in c.blind)
    # the rulebook's grounding rules (computed as the gate holds them) on the stand-in's default-prompt
    # traffic, which quotes its tools and help texts: a conversation labelled good should raise none
    # (goal: 95% quiet; the rules' own severity, high by default, is above low)
    good = [c for c in default if not c.expected & {k for k in SCORED if k[0] in ("security", "promise")}]
    quiet = sum(1 for c in good if not any(kind == "grounding" for kind, _ in c.flagged))
    grounding_quiet = round(quiet / len(good), 3) if good else None
    goals_met = (
        all(
            (figures["/".join(k)]["precision"] or 0) >= p and (figures["/".join(k)]["recall"] or 0) >= r
            for k, (p, r) in GOALS.items()
        )
        and critical_on_default == 0
        and critical_on_own == 0
    )
    err = sys.stderr
    print(f"{len(corpus)} labelled conversations ({', '.join(f'{s.name}' for s in SLICES)})", file=err)
    print(f"{'kind/cause':32} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>7}", file=err)
    for name, f in figures.items():
        p = "-" if f["precision"] is None else f"{f['precision']:.3f}"
        r = "-" if f["recall"] is None else f"{f['recall']:.3f}"
        print(f"{name:32} {f['tp']:>4} {f['fp']:>4} {f['fn']:>4} {p:>10} {r:>7}", file=err)
    print(f"critical flags on default-prompt traffic: {critical_on_default}", file=err)
    print(
        f"foreign traffic ({len(foreign)} conversations of an agent that is not the shop, labelled by hand):",
        file=err,
    )
    for name, f in foreign_figures.items():
        if f["tp"] or f["fp"] or f["fn"]:
            p = "-" if f["precision"] is None else f"{f['precision']:.3f}"
            r = "-" if f["recall"] is None else f"{f['recall']:.3f}"
            print(f"  {name:30} {f['tp']:>4} {f['fp']:>4} {f['fn']:>4} {p:>10} {r:>7}", file=err)
    print(
        f"  critical flags where the customer asked only about their own order: {critical_on_own}/{len(own_only)}",
        file=err,
    )
    print(f"good default-prompt conversations with no grounding flag: {quiet}/{len(good)}", file=err)
    for what, n in blind.items():
        print(f"not visible in spans (no rule can flag it): {what}: {n}", file=err)
    if unlabelled:
        print(f"{len(unlabelled)} answer(s) have no promise label (bench/promise_labels.json)", file=err)
    tau = tau_figures()
    print(
        f"tau-bench airline, tasks 0-24 (a development figure: the rules were shaped on them): queue AUC "
        f"{tau['auc_queue_order']} as ordered, {tau['auc_by_severity']} by severity (goal 0.8); critical flags "
        f"{tau['critical_flags']}; drafts agree with the benchmark on {tau['agreement_on_other_trials']:.1%} of "
        f"the other trials, {tau['wrong_trials_passed']:.1%} of the wrong ones passed (goals 85%, at most 10%)",
        file=err,
    )
    result = {
        "tau_airline": tau,
        "conversations": len(corpus),
        "critical_on_default_prompt": critical_on_default,
        "grounding_quiet_on_good_default": grounding_quiet,
        "blind_spots": dict(blind),
        "unlabelled_answers": len(unlabelled),
        "foreign": {
            "conversations": len(foreign),
            "critical_on_own_order": critical_on_own,
            **{k: {"precision": v["precision"], "recall": v["recall"]} for k, v in foreign_figures.items()},
        },
        "goals_met": goals_met,
        **{k: {"precision": v["precision"], "recall": v["recall"]} for k, v in figures.items()},
    }
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
