"""The runner: every case replayed through its target (`goldens.run.targets`: the reference agent in a fresh
shop by default), graded, and gated.

Facts come from the spans of the replay (a collector on filon's tracing fan-out), not from the agent's
return value. Infrastructure failures after retries are counted apart from quality failures.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import httpx
from opentelemetry import trace

from filon.agent.model import Backend
from filon.agent.prompts import Prompt
from filon.agent.tools import ESCALATION_TOOL
from filon.goldens.case.schema import Case
from filon.goldens.checks import grade, kinds
from filon.goldens.checks.rules import GatingRules, RuleGate
from filon.goldens.models import retry
from filon.goldens.models.model_calls import cause
from filon.goldens.models.model_checks import AskModels, ModelChecks
from filon.goldens.models.simulator import Simulator, SimulatorError
from filon.goldens.run.attempt import Attempt as Attempt
from filon.goldens.run.budget import Budget, within_budget
from filon.goldens.run.final_state import state_reader
from filon.goldens.run.spans import TraceCollector
from filon.goldens.run.targets import (
    ForwardsSpans,
    NotRunnable,
    ReferenceTarget,
    Session,
    Target,
    TargetError,
)
from filon.miner.core.messages import said
from filon.miner.core.model import Turn
from filon.tracing.grouping import TurnOf, turn_of
from filon.tracing.records import SpanRecord, from_sdk
from filon.tracing.setup import ensure_tracing


@dataclass
class RunOptions:
    repeat: int = 1
    concurrency: int = 4
    escalation_tools: tuple[str, ...] = (ESCALATION_TOOL,)
    model_checks: ModelChecks | None = None  # the judge and the embedder, when cases ask for them
    budget: Budget | None = None  # --budget: attempts that would go over it are not started
    rules: RuleGate | None = None  # the rulebook, each rule gating or advisory on the set


@dataclass
class RunOutput:
    run_id: str
    started_at: datetime
    duration_s: float
    attempts: list[Attempt]
    circuit_opened: bool
    retried: int
    interrupted: bool = False  # ctrl-C: only the attempts that had finished are here
    budget: Budget | None = None  # --budget: what was spent, and how many attempts it did not start


def make_http_client(policy: retry.RetryPolicy) -> tuple[httpx.Client, retry.RetryTransport]:
    transport = retry.RetryTransport(policy)
    return httpx.Client(transport=transport, timeout=httpx.Timeout(60.0)), transport


def play(
    case: Case,
    attempt: int,
    target: Target,
    collector: TraceCollector,
    run_id: str,
    escalation_tools: tuple[str, ...],
    conversation_id: str | None = None,
    model_checks: ModelChecks | None = None,
    rules: RuleGate | None = None,
) -> Attempt:
    """One attempt of one case: the target prepared, every turn in order, facts read from the turn's spans,
    graded; sealed, it is the report's own attempt. The conversation id is unique per attempt (concurrent
    attempts never share spans) unless given."""
    result = Attempt(case_id=case.id, category=case.categorie, attempt=attempt)
    _play(result, case, target, collector, run_id, escalation_tools, conversation_id, model_checks, rules)
    return result.seal()


def _play(
    result: Attempt,
    case: Case,
    target: Target,
    collector: TraceCollector,
    run_id: str,
    escalation_tools: tuple[str, ...],
    conversation_id: str | None,
    model_checks: ModelChecks | None,
    rules: RuleGate | None,
) -> None:
    session = Session(case, conversation_id or f"eval-{run_id}-{case.id}-{result.attempt}")
    try:
        target.begin(session)
    except NotRunnable as exc:
        result.not_runnable = result.keep(exc.said)
        return
    except TargetError as exc:
        result.error = result.keep(said("target.error", error=exc.said))
        return
    if case.etat_final is not None and state_reader(target) is None:
        result.not_runnable = result.keep(said("gap.no_final_state", target=target.name))
        return
    simulator = model_checks.simulator if model_checks is not None else None
    if case.simulation is not None:
        if not _simulate(result, case, target, collector, session, escalation_tools, simulator):
            return
    else:
        for turn in case.tours:
            if not _exchange(result, case, turn, target, collector, session, escalation_tools):
                return
    _grade(result, case, target, session, model_checks, rules)


def _exchange(
    result: Attempt,
    case: Case,
    turn: str,
    target: Target,
    collector: TraceCollector,
    session: Session,
    escalation_tools: tuple[str, ...],
) -> bool:
    """One customer message sent and the turn read from its spans; False when the attempt is over (an
    infrastructure error, or a target that cannot run the case)."""
    tracer = trace.get_tracer("filon.eval")
    result.customer_messages.append(turn)
    with tracer.start_as_current_span(f"eval_turn {case.id}") as span:
        trace_id = span.get_span_context().trace_id
        backoff_before = retry.backoff_seconds()
        started = time.perf_counter()
        answer = ""
        try:
            answer = target.send(session, turn)
        except NotRunnable as exc:  # an HTTP target refuses the fixtures with its first turn
            result.not_runnable = result.keep(exc.said)
            return False
        except TargetError as exc:
            result.error = result.keep(said("target.error", error=exc.said))
        except Exception as exc:
            label = cause(exc)
            if label is None:
                raise
            result.error = result.keep(label)
        session.turn += 1
        elapsed_ms = (time.perf_counter() - started) * 1000
        backoff_ms = (retry.backoff_seconds() - backoff_before) * 1000
    spans = [from_sdk(s) for s in collector.take(trace_id) if not s.name.startswith("eval_turn")]
    result.trace_ids.append(f"{trace_id:032x}")
    if result.error:
        result.transcript.turns.append(Turn.exchange(turn, answer))
        return False
    try:
        spans += target_spans(target, session)
    except TargetError as exc:
        result.error = result.keep(said("target.error", error=exc.said))
        return False
    if not spans:  # naming what the agent must emit (never « rerun »)
        result.error = result.keep(said("target.not_traced"))
        return False
    seen = turn_of(spans, escalation_tools)
    result.conversation = result.conversation or seen.conversation_id
    if case.simulation is not None:  # its transcript goes to the store, where the TUI opens it
        result.spans.extend(spans)
    _read_turn(result, turn, seen, answer, elapsed_ms, backoff_ms)
    return True


def _simulate(
    result: Attempt,
    case: Case,
    target: Target,
    collector: TraceCollector,
    session: Session,
    escalation_tools: tuple[str, ...],
    simulator: Simulator | None,
) -> bool:
    """The simulated customer talks to the agent until its objective is reached or the turns run out."""
    simulation = case.simulation
    assert simulation is not None
    if simulator is None:
        result.error = result.keep(said("target.no_simulator"))
        return False
    message, turns = simulation.premier_message, []
    result.objective_reached = False
    for _ in range(simulation.max_tours):
        if not _exchange(result, case, message, target, collector, session, escalation_tools):
            result.objective_reached = None  # cut short by the infrastructure: neither reached nor missed
            return False
        turns += [("client", message), ("agent", result.transcript.answers[-1])]
        try:
            step = simulator.next(simulation, turns)
        except SimulatorError as exc:
            result.error, result.objective_reached = result.keep(exc.said), None
            return False
        result.simulator_input_tokens += step.input_tokens
        result.simulator_output_tokens += step.output_tokens
        if step.reached:
            result.objective_reached = True
            break
        message = step.message
    return True


def _grade(
    result: Attempt,
    case: Case,
    target: Target,
    session: Session,
    model_checks: ModelChecks | None,
    rules: RuleGate | None = None,
) -> None:
    """Every kind of check in one loop, in cost order (`goldens.checks.grade`): the case's own, the
    rulebook's (always), the models' (only when everything cheaper passed). A check the spans cannot
    decide (no arguments recorded), or a model that did not answer, is an infrastructure error."""
    transcript = result.transcript
    transcript.objective_reached = result.objective_reached
    if case.etat_final is not None:
        reader = state_reader(target)
        try:
            transcript.final_state = reader(session) if reader is not None else {}
        except TargetError as exc:
            result.error = result.keep(said("target.error", error=exc.said))
            return
    ruled = GatingRules(rules) if rules is not None else None
    asked = AskModels(model_checks, result.customer_messages) if model_checks is not None else None
    gaps = grade(case, transcript, (*kinds(), *(k for k in (ruled, asked) if k is not None)))
    if asked is not None:
        result.model_checks = asked.finished(case)
    undecided = [g for g in gaps if g.infrastructure]
    if undecided:
        result.error = result.keep(undecided[0].said)
        if asked is None or not asked.graded:  # the spans could not decide: nothing else is kept
            return
    result.gaps = [result.keep(g.said) for g in gaps if not g.infrastructure]
    if ruled is not None:
        result.blocking_rules, result.rule_notes = ruled.blocking, ruled.notes


def turns_at_most(case: Case) -> int:
    return case.simulation.max_tours if case.simulation is not None else len(case.tours)


def _read_turn(
    result: Attempt, asked: str, seen: TurnOf, said: str, elapsed_ms: float, backoff_ms: float
) -> None:
    """A turn's facts, from its spans: each tool call with its arguments, result and failure, the
    escalation, latency (backoff waits left out), tokens, model versions; the answer's text from the
    spans too, or from the reply where the spans carry none."""
    result.transcript.turns.append(replace(seen.turn, user=asked, agent=seen.turn.agent or said))
    result.latencies_ms.append(max(0.0, (seen.turn.latency_ms or elapsed_ms) - backoff_ms))
    result.input_tokens += seen.turn.input_tokens
    result.output_tokens += seen.turn.output_tokens
    result.models.extend(sorted(seen.model_versions))


def target_spans(target: Target, session: Session) -> list[SpanRecord]:
    """The spans a target received out of this process (an HTTP target's, through the runner's OTLP
    receiver) for the turn just sent; none for a target in this process (the collector has them)."""
    return list(target.spans(session)) if isinstance(target, ForwardsSpans) else []


def _longest_first(cases: list[Case], repeat: int) -> list[tuple[Case, int]]:
    """Every (case, attempt), longest first (multi-turn, several expected tools): the pool's tail is short
    cases, not long ones."""
    return sorted(
        ((case, n) for n in range(1, repeat + 1) for case in cases),
        key=lambda job: (-turns_at_most(job[0]), -len(job[0].outils) - len(job[0].outils_interdits), job[1]),
    )


def _pooled(
    job: Callable[[tuple[Case, int]], Attempt | None], jobs: list[tuple[Case, int]], concurrency: int
) -> tuple[list[Attempt], bool]:
    """The jobs' attempts, `concurrency` at a time, and whether ctrl-C cut the run short (the attempts
    under way then finish, the others never start)."""
    attempts: list[Attempt] = []
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        futures = [pool.submit(job, j) for j in jobs]
        for future in as_completed(futures):
            finished = future.result()
            if finished is not None:
                attempts.append(finished)
    except KeyboardInterrupt:
        pool.shutdown(wait=True, cancel_futures=True)
        ended = [f.result() for f in futures if f.done() and not f.cancelled() and f.exception() is None]
        return [a for a in ended if a is not None], True
    finally:
        pool.shutdown(wait=True)
    return attempts, False


def run_cases(
    cases: list[Case],
    backend: Backend | None,
    prompt: Prompt,
    options: RunOptions,
    transport: retry.RetryTransport | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
    target: Target | None = None,
) -> RunOutput:
    if target is None:
        if backend is None:
            raise RuntimeError("the reference agent needs a model backend")
        target = ReferenceTarget(backend, prompt)
    fanout = ensure_tracing()
    collector = TraceCollector()
    fanout.add(collector)
    run_id = uuid.uuid4().hex[:12]
    started_at = datetime.now(UTC)
    started = time.perf_counter()

    def job(item: tuple[Case, int]) -> Attempt | None:
        done = within_budget(options.budget, item[0], lambda: play(*item, target, collector, run_id,
                             options.escalation_tools, None, options.model_checks, options.rules))  # fmt: skip
        if done is not None and on_attempt:
            on_attempt(done)
        return done

    try:
        attempts, interrupted = _pooled(job, _longest_first(cases, options.repeat), options.concurrency)
    finally:
        fanout.remove(collector)
    order = {case.id: i for i, case in enumerate(cases)}  # the report follows the set, not the finish
    attempts.sort(key=lambda a: (order.get(a.case_id, len(order)), a.attempt))
    return RunOutput(
        run_id=run_id,
        started_at=started_at,
        duration_s=time.perf_counter() - started,
        attempts=attempts,
        circuit_opened=bool(transport and transport.breaker.open),
        retried=transport.retried if transport else 0,
        interrupted=interrupted,
        budget=options.budget,
    )
