"""A stored conversation kept as a judged example of a case: the proof a case's checks are tried on.

A case drafted from one conversation is only as good as the other conversations it judges: the same
request answered again, right and wrong (a benchmark's other trials of a task, last week's traffic a
reviewer went through). `filon goldens label` keeps each as an example with the reviewer's verdict
(origine `revue`, the checks' fingerprint of the day: `goldens trust` counts such answers apart), its
answers turn by turn and its calls with their arguments, results and failures, redacted as a case is.
Lint then proves the checks on it: a `bon` one they reject is « trop strict », a `mauvais` one they
accept « trop lâche »; the example is kept either way, since that verdict is what lint needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from filon.goldens.case.fingerprint import checks_fingerprint
from filon.goldens.case.schema import Case, Example
from filon.goldens.drafting.leaks import redacted
from filon.goldens.set.calibration import grade
from filon.goldens.set.case_files import case_json
from filon.goldens.set.caseset import write_case
from filon.miner.core.messages import Refusal, said
from filon.miner.core.model import Conversation, ToolCall
from filon.miner.rules.config import test_identities
from filon.tracing.redact import Redactor, load_secret


def example_call(call: ToolCall) -> dict[str, Any]:
    """A call as an example writes it: its arguments where recorded, its result, its failure."""
    out: dict[str, Any] = {"outil": call.name}
    if call.arguments_recorded:
        out["args"] = call.arguments
    if call.result is not None:
        out["resultat"] = call.result
    if call.error:
        out["erreur"] = call.error
    return out


def example_of(conv: Conversation) -> dict[str, Any] | None:
    """The conversation as an example's answer: one answer and one list of calls per customer turn; None
    when it has no answer at all."""
    turns = [t for t in conv.turns if t.user.strip() or t.tools]
    answers = [t.agent for t in turns]
    if not any(a.strip() for a in answers):
        return None
    return {
        "reponse": answers[0] if len(answers) == 1 else answers,
        "outils": [[example_call(c) for c in t.tools] for t in turns],
        "escalade": any(t.escalated for t in conv.turns),
    }


class LabelError(Refusal):
    """A case or a verdict that cannot take the example; the message names it."""


def add_example(
    folder: Path, case_id: str, conv: Conversation, verdict: str, reviewer: str, note: str = ""
) -> tuple[Path, bool]:
    """Keep the conversation as an example of `verdict` in the case's file (written whole or not at all);
    the path, and whether the case's checks agree with the verdict."""
    if verdict not in ("bon", "mauvais"):
        raise LabelError(said("err.label.verdict", verdict=repr(verdict)))
    path = folder / f"{case_id}.json"
    if not path.is_file():
        raise LabelError(said("err.label.no_case", id=repr(case_id), folder=str(folder)))
    try:
        data = case_json(path)
        case = Case.model_validate(data)
    except (OSError, ValueError) as exc:
        raise LabelError(said("err.at", where=str(path), why=str(exc).splitlines()[0])) from None
    found = example_of(redacted(conv, Redactor(load_secret(), test_identities())))
    if found is None:
        raise LabelError(said("err.label.no_answer", id=repr(conv.id)))
    signed = f"{conv.id}, jugée par {reviewer or 'relecteur'}" + (f" : {note}" if note else "")
    example = {
        **found,
        "verdict": verdict,
        "origine": "revue",
        "note": signed,
        "controles": checks_fingerprint(case),
    }
    parsed = Example.model_validate(example)
    if any(e.answers() == parsed.answers() for e in case.exemples):
        raise LabelError(said("err.label.already", id=case_id))
    data["exemples"] = [*data.get("exemples", []), example]
    write_case(folder, data, overwrite=True)
    return path, (not grade(case, parsed)) == (verdict == "bon")
