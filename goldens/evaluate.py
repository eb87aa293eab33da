"""`evaluate()`: the one library call behind `filon eval`. Its result's `exit_code` is the command's:
0 passed · 1 failed (score or blocking category) · 2 usage · 3 inconclusive (infrastructure, or no
credentials) · 4 the golden set itself is invalid · 130 interrupted (the report says what was done).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from filon.agent.model import Backend, MissingCredentials, open_backend
from filon.agent.prompts import Prompt, load_prompt
from filon.goldens.case.schema import Case
from filon.goldens.checks.rubrics import RubricError
from filon.goldens.checks.rules import RuleGate, Rules
from filon.goldens.exits import Exit
from filon.goldens.models.model_checks import ModelChecks, open_model_checks
from filon.goldens.models.retry import RetryPolicy, RetryTransport
from filon.goldens.run.budget import Budget
from filon.goldens.run.runner import Attempt, RunOptions, RunOutput, make_http_client, run_cases
from filon.goldens.run.targets import Target, parse_target
from filon.goldens.run.transcripts import store_transcripts
from filon.goldens.set.caseset import BLOCKING_DEFAULT, CaseSet, Problem, load_set, missing_set
from filon.goldens.set.coverage import WEEK, last_week
from filon.goldens.set.rule_standing import standings
from filon.goldens.verdict import compare_view, lang, record
from filon.goldens.verdict import report as rpt
from filon.goldens.verdict.compare import Comparison, compare
from filon.goldens.verdict.files import outputs, write_atomic
from filon.goldens.verdict.gate import BudgetStop, Gate, Interruption, decide
from filon.goldens.verdict.junit import junit
from filon.goldens.verdict.report_console import console_lines
from filon.goldens.verdict.report_model import BudgetReport, EvalReport, PromptRef
from filon.goldens.verdict.worst import worst
from filon.miner.core.messages import Refusal, Said, said, why
from filon.miner.rules.config import FlagConfig
from filon.miner.settings import settings
from filon.miner.store import Store, StoreError


@dataclass
class EvalConfig:
    goldens: str | Path | None = None
    ids: list[str] | None = None
    threshold: float = 0.9  # --seuil, EVAL_SEUIL
    blocking: tuple[str, ...] = BLOCKING_DEFAULT  # --bloquant: categories no score compensates
    repeat: int = 1
    concurrency: int = 4
    backend: str = "gemini"
    model: str | None = None
    model_url: str | None = None
    prompt: str | None = None
    report: Path = field(default_factory=lambda: settings().report_path())
    junit: Path | None = None
    baseline: Path | None = None
    max_error_rate: float = 0.1
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    compare_with: Path | None = None  # run A's report: compare this run (B) with it
    margin: float = 0.05  # --marge of a comparison
    markdown: Path | None = None
    target: str | None = None  # filon, python:MODULE:ATTR, http://…; None: the configuration's, else filon
    otlp_port: int = 4318  # an HTTP target's spans come to the runner's receiver on this loopback port
    span_timeout: float = 10.0  # how long to wait for a turn's spans after an HTTP target's reply
    judge_model: str | None = (
        None  # None: another model than the agent's (`goldens.models.judge.default_judge_model`)
    )
    embedding_model: str | None = None  # None: gemini-embedding-001, or the stand-in's
    simulator_model: str | None = None  # the simulated customer's; None: gemini-2.5-flash, or the stand-in's
    budget: float | None = None  # in the price table's currency: attempts that would go over are not started


@dataclass
class EvalOutcome:
    """What `evaluate` hands back to the CLI: the exit code, why, and the report it wrote."""

    exit_code: int
    message: str | Said = ""  # the gate's rule (its language), or why no run (a sentence)
    report: EvalReport | None = None
    problems: list[Problem] = field(default_factory=list)
    banner: Said | str = ""
    store_warning: str = ""
    comparison: Comparison | None = None
    written: tuple[Path, Path | None] | None = None  # where the report and the JUnit went

    def lines(self, lang: str = "fr") -> list[str]:  # in French (the default) or English
        out = console_lines(self.report, lang) if self.report else []
        return [*out, "", *compare_view.console_lines(self.comparison, lang)] if self.comparison else out


@dataclass
class Inputs:
    """What a run needs, read and checked before anything is replayed."""

    caseset: CaseSet
    cases: list[Case]
    prompt: Prompt
    earlier: EvalReport | None  # run A, for --compare-with
    baseline: EvalReport | None
    target: str = "filon"
    escalation_tools: tuple[str, ...] = ()
    rules: RuleGate | None = None  # the rulebook, each rule's standing proven on the set


def evaluate(
    config: EvalConfig,
    on_start: Callable[[int, Said], None] | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> EvalOutcome:
    """Check the options and read the inputs, replay, decide, write the report, compare, record."""
    inputs = _inputs(config)
    if isinstance(inputs, EvalOutcome):
        return inputs
    if inputs.target != "filon":
        return _evaluate_target(config, inputs, on_start, on_attempt)
    http, transport = make_http_client(config.policy)
    try:
        with open_backend(config.backend, config.model, config.model_url, httpx_client=http) as backend:
            checks = model_checks(config, inputs, backend)
            replay = Replay(config, inputs, checks, on_start, on_attempt)
            run = replay.run(backend.model, backend.banner, backend=backend, transport=transport)
            if isinstance(run, EvalOutcome):
                return run
            model_name, banner = backend.model, backend.banner
    except (MissingCredentials, ValueError) as exc:
        return _refusal(exc)
    finally:
        http.close()
    return _decide(config, inputs, run, model_name, banner, checks)


def _refusal(exc: Exception) -> EvalOutcome:
    """A run that could not start: no credentials (3), a rubric missing from the set (4), a bad option (2)."""
    if isinstance(exc, MissingCredentials):
        return EvalOutcome(Exit.INCONCLUSIVE, why(exc))
    return EvalOutcome(Exit.INVALID_SET if isinstance(exc, RubricError) else Exit.USAGE, why(exc))


@dataclass
class Replay:
    """What both paths share once their agent is ready: the budget (or why nothing would run), the banner,
    the run itself."""

    config: EvalConfig
    inputs: Inputs
    checks: ModelChecks | None
    on_start: Callable[[int, Said], None] | None
    on_attempt: Callable[[Attempt], None] | None

    def run(
        self,
        agent_model: str,
        banner: Said,
        backend: Backend | None = None,
        target: Target | None = None,
        transport: RetryTransport | None = None,
    ) -> RunOutput | EvalOutcome:
        config, inputs = self.config, self.inputs
        budget = _budget(config, inputs, agent_model, self.checks)
        refused = budget.nothing_fits(inputs.cases) if budget is not None else None
        if refused is not None:
            return EvalOutcome(Exit.INCONCLUSIVE, refused)
        if self.on_start:
            self.on_start(len(inputs.cases) * config.repeat, _banner(banner, self.checks, budget))
        options = RunOptions(
            config.repeat, config.concurrency, inputs.escalation_tools, self.checks, budget, inputs.rules
        )
        return run_cases(inputs.cases, backend, inputs.prompt, options, transport, self.on_attempt, target)


def model_checks(config: EvalConfig, inputs: Inputs, backend: Backend) -> ModelChecks | None:
    """The judge, the embedder and the simulated customer the cases ask for, on the run's backend."""
    return open_model_checks(
        inputs.cases,
        inputs.caseset.folder,
        backend,
        config.judge_model,
        config.embedding_model,
        config.simulator_model,
    )


def _budget(
    config: EvalConfig, inputs: Inputs, agent_model: str, checks: ModelChecks | None
) -> Budget | None:
    if config.budget is None:
        return None
    tokens = len(inputs.prompt.text) // 4 if inputs.target == "filon" else 0
    budget = Budget(config.budget, rpt.prices(), agent_model, tokens, checks)
    unknown = budget.unpriced(agent_priced=inputs.target == "filon")
    if unknown:
        raise Refusal(said("err.eval.no_price", models=", ".join(unknown)))
    budget.estimated = budget.total(inputs.cases, config.repeat)
    return budget


def _banner(banner: Said, checks: ModelChecks | None, budget: Budget | None = None) -> Said:
    """The model (or target) line, with the budget and each model the checks call, stand-ins named."""
    more = ([budget.announce()] if budget is not None else []) + (checks.announce() if checks else [])
    return said("banner.with", banner=banner, more=more) if more else banner  # two lines a terminal can read


def _evaluate_target(
    config: EvalConfig,
    inputs: Inputs,
    on_start: Callable[[int, Said], None] | None,
    on_attempt: Callable[[Attempt], None] | None,
) -> EvalOutcome:
    """The run on someone else's agent: no model of filon's is opened; the target answers."""
    from filon.goldens.run.targets import open_target

    checks = None
    try:
        with ExitStack() as stack:
            target = stack.enter_context(open_target(inputs.target, config.otlp_port, config.span_timeout))
            if any(c.juge or c.proche_de or c.simulation for c in inputs.cases):  # not the agent's model
                backend = stack.enter_context(open_backend(config.backend, None, config.model_url))
                checks = model_checks(config, inputs, backend)
            banner = said("banner.target", target=inputs.target)
            run = Replay(config, inputs, checks, on_start, on_attempt).run(
                inputs.target, banner, target=target
            )
            if isinstance(run, EvalOutcome):
                return run
    except (MissingCredentials, ValueError) as exc:
        return _refusal(exc)
    except OSError as exc:  # the receiver's port is taken
        port = f"--otlp-port {config.otlp_port}"
        return EvalOutcome(Exit.USAGE, said("err.at", where=port, why=exc.strerror or str(exc)))
    return _decide(config, inputs, run, inputs.target, banner, checks)


def _decide(
    config: EvalConfig,
    inputs: Inputs,
    run: RunOutput,
    model_name: str,
    banner: Said,
    checks: ModelChecks | None = None,
) -> EvalOutcome:
    b = run.budget
    stop = BudgetStop(b.limit, b.skipped, b.spent) if b is not None and b.stopped else None
    done = Interruption(len(run.attempts), len(inputs.cases) * config.repeat) if run.interrupted else None
    gate = decide(run.attempts, config.threshold, config.blocking, config.max_error_rate, stop, done)
    written = outputs(config.report, config.junit, run.interrupted)
    document = _report(config, inputs, run, gate, model_name, checks, written)
    outcome = EvalOutcome(gate.exit_code, gate.rule, document, inputs.caseset.warnings, banner)
    outcome.written = written
    if inputs.earlier is not None and not run.interrupted:
        outcome.comparison = compare(inputs.earlier, document, config.margin)
        outcome.exit_code = gate.exit_with(outcome.comparison.exit_code)
        publish(outcome.comparison, config.markdown)
    warnings = [_record(document, str(config.report), outcome.comparison), store_transcripts(run)]
    outcome.store_warning = "; ".join(w for w in warnings if w)
    return outcome


def _inputs(config: EvalConfig) -> Inputs | EvalOutcome:
    """The set, the cases asked for, the prompt and the reports to compare with; or why not (usage, 2;
    an invalid set, 4)."""
    if not 0 <= config.threshold <= 1:
        return EvalOutcome(Exit.USAGE, said("err.eval.threshold", value=config.threshold))
    if config.repeat < 1 or config.concurrency < 1:
        return EvalOutcome(Exit.USAGE, said("err.eval.repeat"))
    absent = missing_set(config.goldens)
    if absent is not None:
        return EvalOutcome(Exit.USAGE, absent)
    caseset = load_set(config.goldens)
    if caseset.errors:
        return EvalOutcome(
            Exit.INVALID_SET, said("err.set.invalid", folder=str(caseset.folder)), problems=caseset.problems
        )
    cases = caseset.cases
    if config.ids:
        known = caseset.by_id()
        unknown = [i for i in config.ids if i not in known]
        if unknown:
            return EvalOutcome(Exit.USAGE, said("err.eval.unknown_ids", ids=", ".join(unknown)))
        cases = [known[i] for i in config.ids]
    try:
        prompt = load_prompt(config.prompt)
    except FileNotFoundError as exc:
        return EvalOutcome(Exit.USAGE, said("err.at", where="--prompt", why=why(exc)))
    reports: dict[str, EvalReport | None] = {"--compare-with": None, "--baseline": None}
    for option, path in (("--compare-with", config.compare_with), ("--baseline", config.baseline)):
        if path:
            try:
                reports[option] = EvalReport.read(Path(path))
            except ValueError as exc:
                return EvalOutcome(Exit.USAGE, said("err.after", option=option, why=why(exc)))
    try:
        flags = FlagConfig.load()
        target = parse_target(config.target or flags.target)
    except ValueError as exc:
        return EvalOutcome(Exit.USAGE, why(exc))
    escalation = tuple(flags.escalation_tools)
    rules = Rules(flags, reference=target == "filon")
    proven = RuleGate(rules, standings(caseset.cases, rules))
    return Inputs(
        caseset, cases, prompt, reports["--compare-with"], reports["--baseline"], target, escalation, proven
    )


def _report(
    config: EvalConfig, inputs: Inputs, run: RunOutput, gate: Gate, model: str, checks: ModelChecks | None,
    written: tuple[Path, Path | None],
) -> EvalReport:  # fmt: skip
    """The report, written (JSON, and JUnit when asked) where `written` says: an interrupted run is
    reported as such, beside an earlier run's whole report rather than over it (`written_to`)."""
    document = rpt.build(
        run,
        gate,
        model=model,
        backend=config.backend if inputs.target == "filon" else "cible",
        prompt=inputs.prompt,
        goldens=str(inputs.caseset.folder),
        repeat=config.repeat,
        checks=checks,
        rules=inputs.rules,
    )
    if run.budget is not None:
        b = run.budget
        document.budget = BudgetReport(
            limit=b.limit, estimated=round(b.estimated, 6), spent=round(b.spent, 6), not_started=b.skipped
        )
    document.interrupted = run.interrupted  # what was done is reported, marked as such
    document.blocking = list(config.blocking)
    default = Path(config.report).absolute() == settings().report_path()
    document.worst = worst(document.cases, document.blocking, None if default else str(config.report))
    covered = last_week(inputs.caseset.cases, frozenset(inputs.escalation_tools))
    if covered is not None:
        document.coverage = rpt.coverage_entry(covered, WEEK)
    document.target = inputs.target
    if inputs.target != "filon":  # its prompt is its own: filon neither knows nor sends it
        document.prompt = PromptRef(path=inputs.target, name="(celui de la cible)", sha256="")
    document.fingerprints = {c.id: fingerprint(c) for c in inputs.cases}
    if inputs.baseline is not None:
        document.baseline = rpt.baseline_diff(document, inputs.baseline, str(config.baseline))
    write_atomic(written[0], document.dumps())
    if written[1] is not None:
        write_atomic(written[1], junit(document))
    return document


def _record(document: EvalReport | None, report_path: str, comparison: Comparison | None) -> str:
    """The trend across runs, and which runs were compared; the decisions never depend on the store."""
    try:
        store = Store.open()
        try:
            if document is not None:
                store.record_eval(*record.rows(document, report_path))
            if comparison is not None:
                a, b = comparison.runs["a"], comparison.runs["b"]
                store.record_comparison(a.id, b.id, record.verdict(comparison.verdict),
                                        comparison.exit_code, comparison.delta, comparison.p_value)  # fmt: skip
        finally:
            store.close()
    except StoreError as exc:
        return f"run not recorded in the store: {exc}"
    return ""


def fingerprint(case: Case) -> str:
    """What the run depends on (turns, checks, fixtures), not the examples or notes."""
    content = case.model_dump(exclude={"exemples", "notes", "source"})
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def publish(comparison: Comparison, markdown: Path | None) -> None:
    """The Markdown summary at `markdown`, and appended to the CI's step summary when there is one."""
    text = compare_view.markdown(comparison, lang.current())  # the console's language (--lang, FILON_LANG)
    if markdown is not None:
        write_atomic(Path(markdown), text)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(text)


@dataclass
class CompareResult:
    exit_code: int
    message: str = ""  # why there is no comparison
    comparison: Comparison | None = None
    store_warning: str = ""


def compare_reports(a: Path, b: Path, margin: float = 0.05, markdown: Path | None = None) -> CompareResult:
    """`filon eval compare A B`: the library call; its `exit_code` is the command's."""
    try:
        ra, rb = EvalReport.read(a), EvalReport.read(b)
        comparison = compare(ra, rb, margin)
    except ValueError as exc:
        return CompareResult(2, str(exc))
    publish(comparison, markdown)
    return CompareResult(comparison.exit_code, "", comparison, _record(None, "", comparison))
