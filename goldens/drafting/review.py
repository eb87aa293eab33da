"""What the review TUI and `filon draft` need from the golden set, behind plain functions:
drafting from the store, saving a case (lint first, atomic, never over an existing id, linked to its
conversation), trying a case against the agent, and reading the failures of the last report.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from filon.agent.knowledge import search
from filon.agent.model import open_backend
from filon.agent.prompts import load_prompt
from filon.goldens.case.fingerprint import checks_fingerprint
from filon.goldens.case.schema import Case, Example
from filon.goldens.case.tool_spec import tool_label
from filon.goldens.drafting.check import Check, Origin
from filon.goldens.drafting.draft import Draft, draft_case
from filon.goldens.drafting.draft_simulation import as_simulation
from filon.goldens.drafting.naming import free_id
from filon.goldens.models.model_checks import open_model_checks
from filon.goldens.run.runner import Attempt, RunOptions, run_cases
from filon.goldens.set.calibration import grade as calibration_grade
from filon.goldens.set.case_files import case_json
from filon.goldens.set.caseset import (
    CaseSet,
    Problem,
    goldens_dir,
    lint_case,
    load_set,
    parse_case,
    write_case,
)
from filon.goldens.set.near import near_duplicates
from filon.goldens.verdict.report_model import EvalReport
from filon.miner.core.messages import Refusal, chained, said
from filon.miner.core.model import Conversation, Flag, ToolCall
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store


def load_conversation(store: Store, conversation_id: str) -> tuple[Conversation, list[Flag]] | None:
    found = store.traces.conversation_detail(conversation_id)
    if found is None:
        return None
    row, turns, flags = found
    return Conversation(row.id, row.channel, turns), flags


# a conversation of more customer turns drafts as a simulated customer: replaying its fixed turns against
# another run of the agent diverges by the second question the agent asks differently
SIMULATED_FROM = 3


def make_draft(
    store: Store,
    conversation_id: str,
    reviewer: str = "",
    case_id: str | None = None,
    folder: Path | None = None,
    simulation: bool = False,
) -> Draft | None:
    """A draft from a stored conversation; with `simulation`, or for a conversation of more than
    `SIMULATED_FROM` customer turns, a simulation case whose persona and objective are drafted from the
    customer's turns (`goldens.drafting.draft_simulation.as_simulation`). The agent's settings
    (`write_tools`…) are filon.toml's, found from the set's folder (or the current one)."""
    loaded = load_conversation(store, conversation_id)
    if loaded is None:
        return None
    caseset = load_set(folder) if goldens_dir(folder).is_dir() else None
    taken_ids = set(caseset.by_id()) if caseset else set()
    taken_tels = {c.tel for c in caseset.cases if c.tel} if caseset else set()
    conv, flags = loaded
    cfg = FlagConfig.load(folder)
    draft = draft_case(conv, flags, taken_ids, taken_tels, reviewer, date.today(), case_id, cfg=cfg)
    long = sum(1 for t in conv.turns if t.user.strip()) > SIMULATED_FROM
    return as_simulation(draft) if simulation or long else draft


def lint_draft(
    case: dict[str, Any],
    folder: Path | None = None,
    replacing: str | None = None,
    existing: CaseSet | None = None,
) -> list[Problem]:
    """Live lint of a case being edited: its own problems, and its id or tel clashing with the set
    (the case being replaced, when editing an existing one, does not count). `existing` is a set
    already read (the editor reads it once, not on every keystroke); without it the folder is read."""
    name = f"{case.get('id', '?')}.json"
    parsed, problems = parse_case(name, json.dumps(case, ensure_ascii=False))
    if parsed is None:
        return problems
    problems = lint_case(name, parsed)
    folder = goldens_dir(folder)
    if existing is None and folder.is_dir():
        existing = load_set(folder)
    if existing is not None:
        others = [c for c in existing.cases if c.id != replacing]
        taken = {c.id for c in others}
        if parsed.id in taken:
            free = free_id(parsed.categorie, {c.id for c in existing.cases})
            taken_id = said("lint.id_taken", id=repr(parsed.id), folder=folder, free=free)
            problems.append(Problem.of(name, "id", taken_id, "error"))
        if parsed.tel and parsed.tel in {c.tel for c in others}:
            problems.append(
                Problem.of(name, "tel", said("lint.tel_taken", tel=parsed.tel, folder=folder), "error")
            )
        for other, share in near_duplicates(parsed, others)[:1]:
            why = said("lint.near_duplicate", other=other, share=share)
            problems.append(Problem.of(name, "tours", why, "warning"))
    return problems


class SaveError(Refusal):
    """A draft lint refuses: its errors, said in one line."""


def save_case(
    store: Store,
    case: dict[str, Any],
    reviewer: str,
    folder: Path | None = None,
    replacing: str | None = None,
) -> Path:
    """Lint, write atomically (never over an existing id, but the one being replaced), link to the
    conversation, mark it done."""
    errors = [p for p in lint_draft(case, folder, replacing) if p.level == "error"]
    if errors:
        raise SaveError(chained([p.sentence() for p in errors], "text.semicolons"))
    try:
        path = write_case(goldens_dir(folder), case, overwrite=case["id"] == replacing)
    except FileExistsError as exc:
        raise SaveError(str(exc)) from exc
    conversation_id = (case.get("source") or {}).get("conversation_id")
    if conversation_id:
        store.reviews.complete(
            conversation_id, reviewer, case["id"], {"file": str(path), **(case.get("source") or {})}
        )
    return path


def relink_written(store: Store, reviewer: str, folder: Path | None = None) -> list[str]:
    """The set's cases whose link to their source conversation never landed (`save_case` killed between
    writing the file and linking it), linked now: the ids."""
    folder = goldens_dir(folder)
    if not folder.is_dir():
        return []
    written = []
    for case in load_set(folder).cases:
        source = case.source or {}
        if isinstance(source.get("conversation_id"), str) and source["conversation_id"]:
            written.append((case.id, source["conversation_id"], {**source, "relinked": True}))
    return store.reviews.link_missing(written, reviewer)


@dataclass(frozen=True)
class Tried:
    """One replay of a case from the editor, and what it ran on: the reviewer must know which prompt."""

    attempt: Attempt
    prompt: str
    model: str
    target: str = "filon (the reference agent)"

    def ran_on(self) -> str:
        return f"prompt {self.prompt} · model {self.model} · target {self.target}"


def try_case(
    case: dict[str, Any],
    backend: str = "gemini",
    prompt: str | None = None,
    target: str | None = None,
    folder: Path | None = None,
) -> Tried:
    """One replay of the case through the agent, as the gate would do it: the reference agent, or the
    target given or configured (`target` in filon.toml), with its judge, similarity and simulated customer
    on `backend` (rubrics beside `folder`); raises MissingCredentials."""
    from filon.goldens.run.targets import open_target, parse_target

    model = Case.model_validate(case)
    loaded = load_prompt(prompt)
    flags = FlagConfig.load()
    spec = parse_target(target or flags.target)
    options = RunOptions(repeat=1, concurrency=1, escalation_tools=tuple(flags.escalation_tools))
    if spec != "filon":
        with ExitStack() as stack:
            chosen = stack.enter_context(open_target(spec))
            if model.juge or model.proche_de or model.simulation:  # their models, not the target's
                judging = stack.enter_context(open_backend(backend))
                options.model_checks = open_model_checks([model], goldens_dir(folder), judging)
            run = run_cases([model], None, loaded, options, target=chosen)
        return Tried(run.attempts[0], "(the target's own)", "(the target's own)", spec)
    with open_backend(backend) as b:
        options.model_checks = open_model_checks([model], goldens_dir(folder), b)
        run = run_cases([model], b, loaded, options)
        return Tried(run.attempts[0], loaded.path, b.model)


@dataclass
class Failure:
    case_id: str
    categorie: str
    question: list[str]
    tools: list[str]
    answers: list[str]
    gaps: list[str]
    passages: list[str] = field(default_factory=list)
    escalade: bool = False
    forbidden: list[str] = field(default_factory=list)  # a blocking case: what must never be said or done
    calls: list[list[dict[str, Any]]] | None = None  # per turn, each call with its arguments (report v5)

    def as_example(self, verdict: str = "bon") -> dict[str, Any]:
        """The failing answer as a reviewer's example: `bon` when the case, not the agent, was wrong;
        `mauvais` when the agent regressed. Its calls per turn with their arguments where the report
        has them."""
        reponse: str | list[str] = self.answers[0] if len(self.answers) == 1 else list(self.answers)
        return {
            "verdict": verdict,
            "reponse": reponse,
            "outils": self.calls if self.calls else list(self.tools),
            "escalade": self.escalade,
            "origine": "revue",
        }


class ReportMissing(Refusal):
    """No report to read: the message says how to make one."""


def report_header(doc: EvalReport) -> str:
    """Which run a report is: prompt, model, date."""
    prompt = doc.prompt.name if doc.prompt.sha256 else "the target's own"  # a target keeps its prompt
    return f"prompt {prompt} · model {doc.model.name} · {doc.execution.started[:16]}"


def failures(report: Path) -> tuple[str, list[Failure]]:
    """The failing cases of a report (with its header), each with what the agent did and, to decide
    whether the case or the agent is wrong, the closest FAQ/CGV passages, or for a blocking case what
    it forbids."""
    if not report.exists():
        raise ReportMissing(said("err.report.none", path=str(report)))
    doc = EvalReport.read(report)
    caseset = load_set(doc.execution.goldens) if doc.execution.goldens else None
    cases = caseset.by_id() if caseset else {}
    blocking = set(doc.blocking or ["securite"])
    out = []
    for case in doc.cases:
        failed = [a for a in case.attempts if a.status == "echec"]
        if not failed:
            continue
        attempt, known = failed[-1], cases.get(case.id)
        tours = known.tours if known else []
        forbidden: list[str] = []
        passages: list[str] = []
        if case.category in blocking and known is not None:
            forbidden = [f"tool {tool_label(t)}" for t in known.outils_interdits] + list(
                known.ne_contient_pas
            )
        else:
            passages = [f"{p.source.upper()} — {p.titre} : {p.texte}" for p in search(" ".join(tours))]
        out.append(
            Failure(
                case.id,
                case.category,
                tours,
                attempt.tools,
                attempt.answers,
                [doc.say(g, "en") for g in attempt.gaps],  # the review screen's language, from their codes
                passages,
                attempt.escalated,
                forbidden,
                [[_call(c) for c in t.tools] for t in attempt.turns] or None,
            )
        )
    return report_header(doc), out


def _call(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"outil": call.name}
    if call.args is not None:
        out["args"] = call.args
    if call.error:
        out["erreur"] = call.error
    return out


def keep_regression(folder: Path, failure: Failure, note: str, reviewer: str) -> str:
    """An answer a reviewer judged a regression of the agent, kept as a `mauvais` example of its case
    (origine `revue`): the honest examples `filon goldens trust` counts apart. Kept only where the case's
    own checks reject it (else lint would call the case too loose); the sentence says what was done."""
    path = folder / f"{failure.case_id}.json"
    try:
        data = case_json(path)
        case = Case.model_validate(data)
    except (OSError, ValueError) as exc:
        return f"not kept as an example: {path}: {exc}"
    example = {
        **failure.as_example("mauvais"),
        "note": f"régression relevée par {reviewer} : {note}".strip(),
        "controles": checks_fingerprint(case),  # judged on the checks as they stand: not fitted to it
    }
    parsed = Example.model_validate(example)
    if any(e.answers() == parsed.answers() for e in case.exemples):
        return "already an example of the case"
    if not calibration_grade(case, parsed):
        return "not kept as an example: the case's checks accept this answer (press w and add the check it misses)"
    data["exemples"] = [*data.get("exemples", []), example]
    write_case(folder, data, overwrite=True)
    return f"kept as a mauvais example in {path}"


def _examples(path: Path, raw: list[Any]) -> list[Example]:
    """A case file's examples, typed; `ValueError` naming the file and the example that does not parse."""
    out = []
    for i, example in enumerate(raw):
        try:
            out.append(Example.model_validate(example))
        except ValueError as exc:
            why = str(exc).splitlines()[-1].strip()
            raise Refusal(said("err.at", where=f"{path}: exemples[{i}]", why=why)) from exc
    return out


def draft_from_case(path: Path, failing: Failure | None = None) -> Draft:
    """An existing case back in the editor (the "case is wrong" answer): its checks marked as existing,
    its examples kept, and the failing real answer added as a `bon` example, so the checks must be
    loosened before the case saves."""
    data = case_json(path)
    checks = [Check("outils", v, Origin.EXISTING) for v in data.get("outils", [])]
    checks += [Check("outils_interdits", v, Origin.EXISTING) for v in data.get("outils_interdits", [])]
    if data.get("escalade") is not None:
        checks.append(Check("escalade", data["escalade"], Origin.EXISTING))
    checks += [Check("contient", v, Origin.EXISTING) for v in data.get("contient", [])]
    checks += [Check("ne_contient_pas", v, Origin.EXISTING) for v in data.get("ne_contient_pas", [])]
    if data.get("simulation") is not None:
        checks.append(Check("simulation", data["simulation"], Origin.EXISTING))
    first = (data.get("simulation") or {}).get("premier_message")
    draft = Draft(
        data["id"],
        data["categorie"],
        data.get("canal", "web"),
        data.get("tours") or ([first] if first else []),
        checks,
        data.get("tel"),
        data.get("fixtures"),
        data.get("source") or {},
        data.get("notes", ""),
        exemples=_examples(path, data.get("exemples") or []),
        beyond={k: data[k] for k in ("juge", "proche_de", "etat_final") if data.get(k) is not None},
    )
    if failing is not None:
        example = failing.as_example()
        draft.observed = {k: example[k] for k in ("reponse", "outils", "escalade")}
        draft.add_observed("bon")
    return draft


def label_answer(
    draft: Draft,
    answer: dict[str, Any],
    critere: str,
    verdict: str,
    reviewer: str,
    today: date,
    folder: Path | None = None,
) -> str:
    """A reviewer's label on the answer on screen for one judge criterion, kept as an example (the known
    verdicts `filon judge calibrate` measures the judge on). The answer's example gets the label if it is
    one already; else it becomes one, of that verdict. `ValueError` for an unknown criterion or verdict."""
    from filon.goldens.checks.rubrics import judges_dir

    if verdict not in ("bon", "mauvais"):
        raise Refusal(said("err.review.verdict", verdict=repr(verdict)))
    rubrics = judges_dir(goldens_dir(folder))
    known = sorted(p.stem for p in rubrics.glob("*.md"))
    if critere not in known:
        named = ", ".join(known) or "-"
        raise Refusal(said("err.review.no_rubric", name=repr(critere), folder=str(rubrics), known=named))
    signed = f"label {critere} {verdict} : {reviewer or 'relecteur'}, {today.isoformat()}"
    for i, example in enumerate(draft.exemples):
        if example.reponse == answer.get("reponse"):
            criteres = {**(example.criteres or {}), critere: verdict}
            note = f"{example.note} · {signed}" if example.note else signed
            draft.exemples[i] = Example.model_validate(
                {**example.model_dump(exclude_unset=True), "criteres": criteres, "note": note}
            )
            return "labelled the answer's example"
    draft.exemples.append(
        Example.model_validate(
            {**answer, "verdict": verdict, "origine": "revue", "criteres": {critere: verdict}, "note": signed}
        )
    )
    return f"added the answer as a '{verdict}' example"
